// End-to-end: `uringload serve` behaves like an HTTP/1.1 server towards real clients (curl,
// raw sockets): 100 Continue, 400 and 431 with a close, a port held by another process is
// refused, and -q prints nothing but errors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/e2e/uringload_runner.h"
#include "tests/e2e/uringload_server.h"
#include "tests/support/raw_client.h"
#include "tests/support/uringload_binary.h"

namespace uringload::testing {
namespace {

constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";

TEST(ServeHttpTest, ASecondServerOnAHeldPortIsRefused) {
  UringloadServer first;
  ASSERT_TRUE(first.ok());
  std::string listen = "127.0.0.1:" + std::to_string(first.port());
  ProcessResult second = RunProcess({UringloadBinary(), "serve", "--listen", listen, "-q"}, 10);
  EXPECT_EQ(second.exit_code, 2) << second.err;
  EXPECT_NE(second.err.find("Address already in use"), std::string::npos) << second.err;
  // The first server answers every request alone.
  RunOutput run = RunUringload({"-n", "2000", "-c", "20", first.Url("/{i}")});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  EXPECT_EQ(JsonCount(run.json, "outcomes.ok"), 2000u);
  FlatJson summary;
  EXPECT_EQ(first.Stop(&summary), 0);
  EXPECT_EQ(JsonCount(summary, "requests.answered"), 2000u);
}

TEST(ServeHttpTest, ExpectContinueGetsAnInterimResponseBeforeTheBody) {
  UringloadServer server;
  ASSERT_TRUE(server.ok());
  RawClient client(server.port());
  ASSERT_TRUE(client.connected());
  ASSERT_TRUE(
      client.Send("POST /up/7 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
                  "Expect: 100-continue\r\nConnection: close\r\n\r\n"));
  EXPECT_EQ(client.ReadExactly(kContinue.size()), kContinue);
  ASSERT_TRUE(client.Send("hello"));
  std::string response = client.ReadUntilClose();
  EXPECT_EQ(response.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << response;
  EXPECT_EQ(response.substr(response.size() - 1), "7") << response;
}

// curl waits up to its expect timeout (1 s) for 100 Continue before sending the body.
TEST(ServeHttpTest, CurlPostsWithExpectWithoutWaiting) {
  UringloadServer server;
  ASSERT_TRUE(server.ok());
  char body_path[] = "/tmp/uringload-body-XXXXXX";
  int fd = mkstemp(body_path);
  std::string body(4096, 'b');
  ASSERT_EQ(write(fd, body.data(), body.size()), static_cast<ssize_t>(body.size()));
  close(fd);
  ProcessResult curl =
      RunProcess({"curl", "-sS", "-o", "/dev/null", "-w", "%{http_code} %{time_total}", "-H",
                  "Expect: 100-continue", "--data-binary", std::string("@") + body_path,
                  "http://127.0.0.1:" + std::to_string(server.port()) + "/post/1"},
                 20);
  unlink(body_path);
  ASSERT_EQ(curl.exit_code, 0) << curl.err;
  EXPECT_EQ(curl.out.substr(0, 4), "200 ") << curl.out;
  EXPECT_LT(std::stod(curl.out.substr(4)), 0.8) << "curl waited for 100 Continue: " << curl.out;
}

TEST(ServeHttpTest, UnparsableRequestsGet400Or431ThenAClose) {
  UringloadServer server;
  ASSERT_TRUE(server.ok());
  {
    // The request before the broken one is answered first, in order.
    RawClient client(server.port());
    ASSERT_TRUE(client.Send("GET /a/ok HTTP/1.1\r\nHost: x\r\n\r\nNOT HTTP AT ALL\r\n\r\n"));
    std::string out = client.ReadUntilClose();
    size_t second = out.find("HTTP/1.1 400 Bad Request\r\n");
    EXPECT_EQ(out.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << out;
    EXPECT_NE(second, std::string::npos) << out;
    EXPECT_NE(out.find("Connection: close\r\n", second), std::string::npos) << out;
  }
  {
    RawClient client(server.port());
    ASSERT_TRUE(
        client.Send("GET / HTTP/1.1\r\nX-Big: " + std::string(70 * 1024, 'a') + "\r\n\r\n"));
    std::string out = client.ReadUntilClose();
    EXPECT_EQ(out.rfind("HTTP/1.1 431 Request Header Fields Too Large\r\n", 0), 0u) << out;
  }
  FlatJson summary;
  EXPECT_EQ(server.Stop(&summary), 0);
  EXPECT_EQ(JsonCount(summary, "requests.bad"), 2u);
  EXPECT_EQ(JsonCount(summary, "requests.answered"), 1u);
}

// -q: nothing on stderr, not even the somaxconn warning a large --backlog causes without it.
TEST(ServeHttpTest, QuietPrintsNothingButErrors) {
  for (bool quiet : {true, false}) {
    uint16_t port = FreePort();
    char err_path[] = "/tmp/uringload-serve-err-XXXXXX";
    close(mkstemp(err_path));
    std::vector<std::string> argv = {UringloadBinary(), "serve",
                                     "--listen",        "127.0.0.1:" + std::to_string(port),
                                     "--backlog",       "1000000"};
    if (quiet) argv.push_back("-q");
    BackgroundProcess server(argv, err_path);
    ASSERT_TRUE(WaitForListener(port));
    EXPECT_EQ(server.Stop(SIGTERM), 0);
    std::ifstream in(err_path);
    std::string err((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    unlink(err_path);
    if (quiet) {
      EXPECT_EQ(err, "");
    } else {
      EXPECT_NE(err.find("somaxconn"), std::string::npos) << err;
    }
  }
}

}  // namespace
}  // namespace uringload::testing
