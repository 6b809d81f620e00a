// GrpcServer: tests/support/grpc_server.py (Debian's python3-grpcio serving shop.Carts from
// tests/e2e/data/shop.proto with a generic handler) on a free 127.0.0.1 port, checked to be
// the one listening there; Stop() ends it and reads what it counted.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tests/support/flat_json.h"
#include "tests/support/process.h"
#include "tests/support/temp_folder.h"

namespace uringload::testing {

class GrpcServer {
 public:
  // `flags`: grpc_server.py's own (--abort-every K, --delay-ms D, --stream N, --tls-cert and
  // --tls-key).
  explicit GrpcServer(std::vector<std::string> flags = {});
  ~GrpcServer();
  bool ok() const { return ok_; }
  uint16_t port() const { return port_; }
  // http://127.0.0.1:PORT, or https:// for a server given --tls-cert.
  std::string Url() const;
  // Stops the server; its counts (calls, well_formed, malformed, aborted, distinct_users,
  // deadlines, cancelled), or none if it wrote none.
  FlatJson Stop();

 private:
  TempFolder folder_{"uringload-grpc"};
  uint16_t port_ = 0;
  bool tls_ = false;
  bool ok_ = false;
  std::unique_ptr<BackgroundProcess> process_;
};

// tests/e2e/data/shop.proto.
std::string ShopProto();

}  // namespace uringload::testing
