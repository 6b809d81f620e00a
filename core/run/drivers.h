// Drivers: the protocols a worker's connections may speak under a plan, one ConnectionDriver
// each, and which one a connection speaks. A new protocol is one more line in MakeDrivers.
#pragma once

#include <memory>
#include <vector>

#include "core/run/connection_driver.h"
#include "net/event_loop.h"

namespace uringload::core {

class Drivers {
 public:
  Drivers() = default;
  Drivers(DriverHost* host, const DriverEnv& env);

  // The driver that opens connections over a transport of its own (QUIC), or null: the
  // worker's loop connects them over TCP (and TLS).
  ConnectionDriver* own_transport() const { return own_transport_; }
  // The driver of a TCP connection that just opened (`tls`: its handshake, null over
  // http://): h2 by ALPN over TLS, --http2 over http://, else HTTP/1.1.
  ConnectionDriver* ForTcp(const net::TlsHandshake* tls) const {
    return (tls != nullptr ? tls->http2 : h2c_) ? http2_ : http1_;
  }

 private:
  std::vector<std::unique_ptr<ConnectionDriver>> owned_;
  ConnectionDriver* http1_ = nullptr;
  ConnectionDriver* http2_ = nullptr;
  ConnectionDriver* own_transport_ = nullptr;
  bool h2c_ = false;  // --http2 over http://.
};

}  // namespace uringload::core
