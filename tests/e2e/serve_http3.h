// Helpers of the `serve --http3` end-to-end tests: the server's flags with the shared test
// certificate, `run --http3` trusting it, and the server's summary once stopped.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/e2e/uringload_runner.h"
#include "tests/e2e/uringload_server.h"
#include "tests/support/tls_certs.h"

namespace uringload::testing {

// `serve` flags for HTTP/3 with the shared certificate, then `more`.
inline std::vector<std::string> Http3Serve(std::vector<std::string> more = {}) {
  std::vector<std::string> flags = {"--http3", "--tls-cert", SharedCert().cert(), "--tls-key",
                                    SharedCert().key()};
  flags.insert(flags.end(), more.begin(), more.end());
  return flags;
}

// `run --http3` trusting the server's certificate, `args` before the URL.
inline RunOutput RunHttp3(const UringloadServer& server, std::vector<std::string> args,
                          const std::string& path = "/{i}") {
  args.insert(args.begin(), {"--http3", "--cacert", SharedCert().cert()});
  args.push_back(server.HttpsUrl(path));
  return RunUringload(args);
}

// The server's JSON summary, once it stopped with exit 0.
inline FlatJson Stopped(UringloadServer& server) {
  FlatJson summary;
  EXPECT_EQ(server.Stop(&summary), 0);
  return summary;
}

}  // namespace uringload::testing
