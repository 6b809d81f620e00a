#include "core/run/drivers.h"

#include "core/run/http1_driver.h"
#include "core/run/http2_driver.h"
#include "core/run/http3_driver.h"

namespace uringload::core {

Drivers::Drivers(DriverHost* host, const DriverEnv& env) {
  const RunPlan& plan = *env.plan;
  h2c_ = plan.http == HttpVersion::kHttp2;
  auto add = [&](std::unique_ptr<ConnectionDriver> driver) {
    owned_.push_back(std::move(driver));
    return owned_.back().get();
  };
  if (plan.http == HttpVersion::kHttp3) {
    own_transport_ = add(std::make_unique<Http3Driver>(host, env));
    return;
  }
  // h2c connections never send HTTP/1.1 bytes; over TLS, ALPN may choose either.
  if (plan.http != HttpVersion::kHttp2 || plan.any_tls()) {
    http1_ = add(std::make_unique<Http1Driver>(host, env));
  }
  if (plan.may_speak_http2()) {
    http2_ = add(std::make_unique<Http2Driver>(host, env));
  }
}

}  // namespace uringload::core
