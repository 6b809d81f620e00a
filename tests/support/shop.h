// ShopServer: tests/support/shop_server.py (a login, a cart and an order behind a token and a
// session cookie) on a free 127.0.0.1 port, checked to be the one listening there; Stop()
// ends it and reads the requests it counted as valid and as refused.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "tests/support/flat_json.h"
#include "tests/support/process.h"
#include "tests/support/temp_folder.h"

namespace uringload::testing {

class ShopServer {
 public:
  // `cookie_max_age`: seconds a session (and its cookie) lasts; `api_port`: the shop also
  // answers on a second free port (api_port(): a second origin sharing its sessions).
  explicit ShopServer(int cookie_max_age = 3600, bool api_port = false);
  ~ShopServer();
  bool ok() const { return ok_; }
  uint16_t port() const { return port_; }
  uint16_t api_port() const { return api_port_; }
  std::string Url(const std::string& path) const;
  // Stops the server; its counts (login_ok, login_bad, cart_ok, cart_bad, order_ok,
  // order_bad, other, site_requests, api_requests), or none if it wrote none.
  FlatJson Stop();

 private:
  TempFolder folder_{"uringload-shop"};
  uint16_t port_ = 0;
  uint16_t api_port_ = 0;
  bool ok_ = false;
  std::unique_ptr<BackgroundProcess> process_;
};

}  // namespace uringload::testing
