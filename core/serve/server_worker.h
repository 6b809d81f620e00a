// ServerWorker: one thread of `uringload serve`: its own ring, an SO_REUSEPORT listener per
// listen address with multishot accept into direct descriptors, multishot receive into its
// buffer ring, delays on its timer wheel and fault injection. It knows no protocol: each
// connection's driver (core/serve/server_driver.h) reads its requests and answers them:
// HTTP/1.1 (server_http1_driver.h), HTTP/2 (server_http2_driver.h), and HTTP/3, whose driver
// brings its own transport (UDP listeners, a UDP socket per client: server_http3_driver.h).
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "core/serve/request_log.h"
#include "core/serve/serve_plan.h"
#include "core/serve/server_connection.h"
#include "core/serve/server_driver.h"
#include "core/serve/server_stats.h"
#include "core/serve/service_queue.h"
#include "net/base/seeded_random.h"
#include "net/event_loop.h"
#include "net/listener.h"

namespace uringload::core {

// The plan's prebuilt responses (all empty when the body echoes the request).
FixedResponses MakeFixedResponses(const ServePlan& plan);

class ServerWorker final : public net::CompletionHandler, private ServerHost {
 public:
  // `loop`: the event loop to drive (tests pass a fake); null: Run() makes a RingEventLoop.
  ServerWorker(const ServePlan* plan, const FixedResponses* fixed, uint32_t index,
               ServerStats* stats, const std::atomic<bool>* stop,
               std::unique_ptr<net::EventLoop> loop = nullptr);
  ServerWorker(const ServerWorker&) = delete;
  ServerWorker& operator=(const ServerWorker&) = delete;

  // Opens the listeners (called before Run so bind errors reach the caller first). A Unix
  // socket binds once for all workers: `shared[i]`, when given and >= 0, is the listening
  // socket of plan->listen[i], which this worker accepts on through a duplicate of its own.
  absl::Status Listen(std::span<const int> shared = {});
  // Serves until stop is set. Call in the worker's thread.
  absl::Status Run();
  void OnCompletion(const net::Completion& completion) override;

 private:
  absl::Status Setup();
  void OnAccept(const net::Completion& completion);
  void OnReceive(uint32_t slot, const net::Completion& completion);
  void OnSend(uint32_t slot, int res);
  void OnTimer(uint32_t owner);

  // ServerHost: what the drivers ask.
  AnswerDraw Draw(int64_t now) override;
  ServerConnection& Conn(uint32_t slot) override;
  void Send(uint32_t slot, ServerConnection& c, std::string_view bytes, bool then_close) override;
  void Close(uint32_t slot, bool notify = true) override;
  void TableFull(std::string_view advice) override;

  const ServePlan* plan_;
  const FixedResponses* fixed_;
  ServerStats* stats_;
  const std::atomic<bool>* stop_;
  int incoming_cpu_;  // SO_INCOMING_CPU of this worker's listeners (-1: none, no --cpus).
  SeededStream rng_;
  ServiceQueue service_;                   // --service-slots.
  std::optional<RequestLog::Writer> log_;  // --log-requests.
  std::vector<net::UniqueFd> listeners_;
  std::unique_ptr<net::EventLoop> loop_;
  // Indexed by direct-descriptor slot; allocated on a slot's first use and reused after.
  std::vector<std::unique_ptr<ServerConnection>> connections_;
  // The protocols it serves: HTTP/1.1, HTTP/2 (--http2), or HTTP/3 alone (--http3: a driver
  // with its own transport takes every completion).
  std::unique_ptr<ServerDriver> http1_, http2_, http3_;
  bool warned_table_full_ = false;
};

}  // namespace uringload::core
