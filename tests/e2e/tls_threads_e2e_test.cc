// End-to-end, under TSan too (label e2e-threads): two client workers and two server workers
// share one SSL_CTX each, with session tickets flowing between them.
#include <gtest/gtest.h>

#include <string>

#include "tests/e2e/uringload_runner.h"
#include "tests/e2e/uringload_server.h"
#include "tests/support/tls_certs.h"

namespace uringload::testing {
namespace {

TEST(TlsThreadsE2ETest, TwoWorkersEachSideShareOneContext) {
  SelfSignedCert cert;
  ASSERT_TRUE(cert.ok());
  UringloadServer server({"-t", "2", "--tls-cert", cert.cert(), "--tls-key", cert.key()});
  ASSERT_TRUE(server.ok());
  std::string url = "https://127.0.0.1:" + std::to_string(server.port()) + "/{i}";
  RunOutput kept = RunUringload({"-n", "5000", "-c", "20", "-t", "2", "-k", url});
  RunOutput closed =
      RunUringload({"-n", "1000", "-c", "20", "-t", "2", "-k", "--no-keepalive", url});
  for (const RunOutput* run : {&kept, &closed}) {
    ASSERT_EQ(run->process.exit_code, 0) << run->process.err;
    EXPECT_EQ(JsonCount(run->json, "outcomes.ok"), JsonCount(run->json, "requests.started"));
  }
  EXPECT_GT(JsonCount(closed.json, "tls.resumed"), 0u);
  FlatJson summary;
  ASSERT_EQ(server.Stop(&summary), 0);
  EXPECT_EQ(JsonCount(summary, "requests.answered"), 6000u);
}

}  // namespace
}  // namespace uringload::testing
