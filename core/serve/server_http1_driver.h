// ServerHttp1Driver: serve's HTTP/1.1 (plain or over TLS). Requests are parsed as they arrive
// (llhttp) and queued in the connection's ring (pipelining); each gets its delay and fault on
// arrival and is answered in order when its time comes. Responses due together go out in one
// send (a burst); a request that cannot be parsed gets 400 or 431 after those before it.
#pragma once

#include <string_view>

#include "core/serve/server_driver.h"

namespace uringload::core {

class ServerHttp1Driver final : public ServerDriver {
 public:
  ServerHttp1Driver(ServerHost* host, const ServerEnv& env) : host_(host), env_(env) {}

  void Open(uint32_t slot, ServerConnection& c) override;
  void OnData(uint32_t slot, ServerConnection& c, std::string_view data) override;
  void Pump(uint32_t slot, ServerConnection& c) override;

 private:
  void Enqueue(ServerConnection& c, int64_t now);
  void Reject(uint32_t slot, ServerConnection& c, int64_t now);
  void Respond(uint32_t slot, ServerConnection& c);
  std::string_view ResponseBytes(ServerConnection& c, const PendingResponse& p);
  bool JoinsBurst(const ServerConnection& c, int64_t now) const;
  std::string_view Burst(ServerConnection& c, std::string_view first, bool& then_close);

  ServerHost* host_;
  ServerEnv env_;
};

}  // namespace uringload::core
