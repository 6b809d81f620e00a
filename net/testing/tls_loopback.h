// TlsLoopback: a client TlsEventLoop and a server TlsEventLoop, each over a FakeEventLoop,
// wired back to back in memory: what one sends, the other receives at the next Pump. For the
// TLS unit tests and the TLS fuzz target: real OpenSSL handshakes and records, no sockets.
#pragma once

#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "net/testing/fake_event_loop.h"
#include "net/tls_event_loop.h"

namespace uringload::net {

// A server context with a fresh self-signed P-256 certificate for "localhost", written to
// PEM files under /tmp (TlsContext::Server reads files, as `serve --tls-cert` does).
inline std::shared_ptr<TlsContext> SelfSignedServerContext() {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  X509* cert = X509_new();
  X509_set_version(cert, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert), 0);
  X509_gmtime_adj(X509_getm_notAfter(cert), 86400);
  X509_set_pubkey(cert, key);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("localhost"), -1, -1, 0);
  X509_set_issuer_name(cert, name);
  X509V3_CTX v3;
  X509V3_set_ctx_nodb(&v3);
  X509V3_set_ctx(&v3, cert, cert, nullptr, nullptr, 0);
  X509_EXTENSION* san = X509V3_EXT_conf_nid(nullptr, &v3, NID_subject_alt_name, "DNS:localhost");
  X509_add_ext(cert, san, -1);
  X509_EXTENSION_free(san);
  X509_sign(cert, key, EVP_sha256());
  char dir[] = "/tmp/uringload-tls-XXXXXX";
  std::string folder = mkdtemp(dir);
  TlsServerOptions files{.cert_file = folder + "/cert.pem", .key_file = folder + "/key.pem"};
  FILE* f = fopen(files.cert_file.c_str(), "w");
  PEM_write_X509(f, cert);
  fclose(f);
  f = fopen(files.key_file.c_str(), "w");
  PEM_write_PrivateKey(f, key, nullptr, nullptr, 0, nullptr, nullptr);
  fclose(f);
  X509_free(cert);
  EVP_PKEY_free(key);
  absl::StatusOr<std::shared_ptr<TlsContext>> context = TlsContext::Server(files);
  remove(files.cert_file.c_str());
  remove(files.key_file.c_str());
  rmdir(folder.c_str());
  return context.ok() ? *context : nullptr;
}

class TlsLoopback {
 public:
  // What a handler saw, in order.
  struct Recorder : CompletionHandler {
    std::vector<Completion> seen;
    std::string received;  // Plaintext of every kRecv.
    void OnCompletion(const Completion& c) override {
      seen.push_back(c);
      seen.back().data = {};
      seen.back().tls = nullptr;
      if (c.op == Op::kRecv && c.res > 0) received.append(c.data);
    }
    bool Saw(Op op, int res) const {
      for (const Completion& c : seen) {
        if (c.op == op && c.res == res) return true;
      }
      return false;
    }
  };

  TlsLoopback(std::shared_ptr<TlsContext> client, std::shared_ptr<TlsContext> server) {
    auto client_fake = std::make_unique<FakeEventLoop>(1);
    auto server_fake = std::make_unique<FakeEventLoop>(1);
    client_fake_ = client_fake.get();
    server_fake_ = server_fake.get();
    client_fake_->on_submit = [this](FakeEventLoop& l, const FakeEventLoop::Submitted& s) {
      if (s.op == Op::kConnect) l.Complete(0, Op::kConnect, 0);
      if (s.op == Op::kSend) {
        l.Complete(0, Op::kSend, static_cast<int>(s.bytes.size()));
        to_server_ += s.bytes;
      }
      if (s.op == Op::kClose) client_closed_ = true;
    };
    server_fake_->on_submit = [this](FakeEventLoop& l, const FakeEventLoop::Submitted& s) {
      if (s.op == Op::kSend) {
        l.Complete(0, Op::kSend, static_cast<int>(s.bytes.size()));
        to_client_ += s.bytes;
      }
      if (s.op == Op::kClose) server_closed_ = true;
    };
    this->client =
        std::make_unique<TlsEventLoop>(std::move(client_fake), std::move(client), 1, "localhost");
    this->server = std::make_unique<TlsEventLoop>(std::move(server_fake), std::move(server), 1, "");
  }

  // The client connects; the server accepts into slot 0.
  void Start() {
    client->Connect(0, SocketAddress(), nullptr);
    server_fake_->Complete(0, Op::kAccept, 0, "", true);
  }
  // Moves bytes both ways and drains both loops, `rounds` times.
  void Pump(int rounds = 8) {
    for (int i = 0; i < rounds; ++i) {
      if (!to_server_.empty() && !server_closed_) {
        server_fake_->Complete(0, Op::kRecv, static_cast<int>(to_server_.size()), to_server_);
      }
      if (!to_client_.empty() && !client_closed_) {
        client_fake_->Complete(0, Op::kRecv, static_cast<int>(to_client_.size()), to_client_);
      }
      to_server_.clear();
      to_client_.clear();
      client->Drain(client_seen);
      server->Drain(server_seen);
    }
  }
  // Bytes as if from the server, straight to the client (forged records).
  void InjectToClient(const std::string& bytes) {
    client_fake_->Complete(0, Op::kRecv, static_cast<int>(bytes.size()), bytes);
    client->Drain(client_seen);
  }
  // The server's TCP close as the client sees it.
  void ServerEof() {
    client_fake_->Complete(0, Op::kRecv, 0);
    client->Drain(client_seen);
  }
  bool client_closed() const { return client_closed_; }

  std::unique_ptr<TlsEventLoop> client;
  std::unique_ptr<TlsEventLoop> server;
  Recorder client_seen;
  Recorder server_seen;

 private:
  FakeEventLoop* client_fake_;
  FakeEventLoop* server_fake_;
  std::string to_server_;
  std::string to_client_;
  bool client_closed_ = false;
  bool server_closed_ = false;
};

}  // namespace uringload::net
