// TlsLoopback: a client TlsEventLoop and a server TlsEventLoop, each over a FakeEventLoop,
// wired back to back in memory: what one sends, the other receives at the next Pump. For the
// TLS unit tests and the TLS fuzz target: real OpenSSL handshakes and records, no sockets.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "net/testing/fake_event_loop.h"
#include "net/testing/self_signed_cert.h"
#include "net/tls_event_loop.h"

namespace uringload::net {

// A server context with a fresh self-signed P-256 certificate for "localhost".
inline std::shared_ptr<TlsContext> SelfSignedServerContext() {
  SelfSignedPem pem;
  absl::StatusOr<std::shared_ptr<TlsContext>> context =
      TlsContext::Server({.cert_file = pem.cert_file(), .key_file = pem.key_file()});
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
