// Fuzzes the client's TLS path: random bytes arrive as the server's ciphertext, either in
// place of the handshake's answer or as records after a real handshake (TlsLoopback: a real
// server over fake loops). Invariants: no crash, no UB, no leak; the connection ends in an
// error or goes on, and closing it always completes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "net/testing/tls_loopback.h"

using uringload::net::Op;
using uringload::net::TlsContext;
using uringload::net::TlsLoopback;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::shared_ptr<TlsContext> client = *TlsContext::Client({.verify = false});
  static std::shared_ptr<TlsContext> server = uringload::net::SelfSignedServerContext();
  if (size < 2) return 0;
  bool after_handshake = data[0] & 1;
  size_t split = data[1] % (size - 1);
  std::string input(reinterpret_cast<const char*>(data + 2), size - 2);
  TlsLoopback link(client, server);
  link.Start();
  if (after_handshake) {
    link.Pump();
    if (!link.client_seen.Saw(Op::kConnect, 0)) abort();
  } else {
    link.client->Drain(link.client_seen);  // The TCP connect; the ClientHello goes out.
  }
  link.InjectToClient(input.substr(0, split));
  link.InjectToClient(input.substr(split));
  link.ServerEof();
  link.client->Close(0);
  link.client->Drain(link.client_seen);
  link.client->Drain(link.client_seen);
  if (!link.client_seen.Saw(Op::kClose, 0)) abort();
  return 0;
}
