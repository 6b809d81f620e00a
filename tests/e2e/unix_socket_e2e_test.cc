// End-to-end over Unix domain sockets: `run --unix` against `serve --unix` (HTTP/1.1, HTTPS,
// h2c) and against nginx on a Unix socket, with exact counts on both sides; bad paths exit 2
// before any traffic; `serve --unix` refuses a path in use or that is not a socket, replaces
// a stale socket, and removes its own on exit.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/e2e/uringload_runner.h"
#include "tests/e2e/uringload_server.h"
#include "tests/support/nginx.h"
#include "tests/support/ports.h"
#include "tests/support/temp_folder.h"
#include "tests/support/tls_certs.h"
#include "tests/support/uringload_binary.h"

namespace uringload::testing {
namespace {

bool Exists(const std::string& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0;
}

// A socket file nobody listens on, as a killed server leaves it.
void MakeStaleSocket(const std::string& path) {
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof(address.sun_path) - 1);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  close(fd);
}

TEST(UnixSocketE2ETest, ServeAnswersExactlyOverHttpHttpsAndH2c) {
  TempFolder folder;
  SelfSignedCert cert("DNS:localhost");
  std::string plain = folder.Path("plain.sock"), tls = folder.Path("tls.sock"),
              h2c = folder.Path("h2c.sock");
  FlatJson summary;
  {
    UringloadServer server({"--unix", plain, "-t", "2"});
    ASSERT_TRUE(server.ok());
    RunOutput run =
        RunUringload({"-n", "3000", "-c", "20", "-t", "2", "--unix", plain, "http://localhost/x"});
    ExpectAllOk(run, 3000);
    EXPECT_EQ(run.json["target"], "http://localhost/x via unix:" + plain);
    // A worker opens a connection per request it claims, up to its 10; one that starts late
    // may find all 3,000 taken (seen once under ASan): 10 to 20, and the server accepted
    // exactly those, none over TCP.
    uint64_t opened = JsonCount(run.json, "connections.opened");
    EXPECT_GE(opened, 10u);
    EXPECT_LE(opened, 20u);
    ASSERT_EQ(server.Stop(&summary), 0);
    EXPECT_EQ(JsonCount(summary, "requests.answered"), 3000u);
    EXPECT_EQ(JsonCount(summary, "connections.accepted"), opened);
    EXPECT_FALSE(Exists(plain));  // Removed on exit.
  }
  {
    UringloadServer server({"--unix", tls, "--tls-cert", cert.cert(), "--tls-key", cert.key()});
    ASSERT_TRUE(server.ok());
    RunOutput run = RunUringload({"-n", "1000", "-c", "10", "--no-keepalive", "--unix", tls,
                                  "--cacert", cert.cert(), "https://localhost/"});
    ExpectAllOk(run, 1000);
    EXPECT_EQ(JsonCount(run.json, "tls.handshakes"), 1000u);
    ASSERT_EQ(server.Stop(&summary), 0);
    EXPECT_EQ(JsonCount(summary, "requests.answered"), 1000u);
  }
  {
    UringloadServer server({"--unix", h2c, "--http2"});
    ASSERT_TRUE(server.ok());
    RunOutput run = RunUringload(
        {"-n", "2000", "-c", "4", "--http2", "--streams", "8", "--unix", h2c, "http://localhost/"});
    ExpectAllOk(run, 2000);
    ASSERT_EQ(server.Stop(&summary), 0);
    EXPECT_EQ(JsonCount(summary, "requests.answered"), 2000u);
  }
}

TEST(UnixSocketE2ETest, NginxAnswersExactlyOverItsUnixSocket) {
  NginxServer nginx({.unix_socket = true});
  ASSERT_TRUE(nginx.ok());
  for (int tries = 0; tries < 100 && !Exists(nginx.UnixSocket()); ++tries) usleep(20'000);
  RunOutput run =
      RunUringload({"-n", "2000", "-c", "10", "--unix", nginx.UnixSocket(), "http://localhost/"});
  ExpectAllOk(run, 2000);
  EXPECT_EQ(nginx.RequestsLogged(), 2000u);
}

// Each bad path: exit 2 and one line naming --unix, the path and the reason, and no traffic.
TEST(UnixSocketE2ETest, BadPathsExitTwoBeforeAnyTraffic) {
  TempFolder folder;
  std::string socket = folder.Path("serve.sock");
  UringloadServer server({"--unix", socket});
  ASSERT_TRUE(server.ok());
  std::string file = folder.Write("file", "not a socket");
  struct Case {
    std::string path;
    std::string message;
  };
  std::vector<Case> cases = {
      {folder.Path("missing.sock"),
       "--unix: " + folder.Path("missing.sock") + ": No such file or directory"},
      {file, "--unix: " + file + ": not a socket"},
      {folder.path(), "--unix: " + folder.path() + ": not a socket"},
      {"/" + std::string(120, 'x'), "at most 107 fit"},
  };
  for (const Case& c : cases) {
    RunOutput run = RunUringload({"-n", "10", "--unix", c.path, "http://localhost/"});
    EXPECT_EQ(run.process.exit_code, 2) << c.path;
    EXPECT_NE(run.process.err.find(c.message), std::string::npos) << run.process.err;
    EXPECT_EQ(std::count(run.process.err.begin(), run.process.err.end(), '\n'), 1)
        << run.process.err;
  }
  RunOutput range = RunUringload({"-n", "10", "--unix", socket, "http://localhost:80-81/"});
  EXPECT_EQ(range.process.exit_code, 2);
  EXPECT_NE(range.process.err.find("--unix: a port range in the URL needs TCP"), std::string::npos);
  // Permission: a socket only its owner (root) may connect to, tried by nobody, with a copy of
  // the binary nobody can run wherever the build tree is.
  ASSERT_EQ(chmod(folder.path().c_str(), 0755), 0);
  ASSERT_EQ(chmod(socket.c_str(), 0600), 0);
  std::string binary = folder.Path("uringload");
  std::filesystem::copy_file(UringloadBinary(), binary);
  ASSERT_EQ(chmod(binary.c_str(), 0755), 0);
  ProcessResult denied =
      RunProcess({"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", binary, "run",
                  "-n", "10", "--unix", socket, "http://localhost/"});
  EXPECT_EQ(denied.exit_code, 2) << denied.err;
  EXPECT_NE(denied.err.find("--unix: " + socket + ": Permission denied"), std::string::npos)
      << denied.err;
  FlatJson summary;
  ASSERT_EQ(server.Stop(&summary), 0);
  EXPECT_EQ(JsonCount(summary, "connections.accepted"), 0u);
}

TEST(UnixSocketE2ETest, ServeRefusesAPathInUseOrNotASocketAndReplacesAStaleOne) {
  TempFolder folder;
  std::string live = folder.Path("live.sock");
  UringloadServer first({"--unix", live});
  ASSERT_TRUE(first.ok());
  auto serve = [](const std::string& path) {
    return RunProcess({UringloadBinary(), "serve", "--quiet", "--unix", path, "--listen",
                       "127.0.0.1:" + std::to_string(FreePort())},
                      10);
  };
  ProcessResult taken = serve(live);
  EXPECT_EQ(taken.exit_code, 2) << taken.err;
  EXPECT_NE(taken.err.find("cannot listen on " + live + ": a server accepts on it"),
            std::string::npos)
      << taken.err;
  std::string file = folder.Write("file.sock", "data");
  ProcessResult not_socket = serve(file);
  EXPECT_EQ(not_socket.exit_code, 2) << not_socket.err;
  EXPECT_NE(not_socket.err.find("it exists and is not a socket"), std::string::npos)
      << not_socket.err;
  EXPECT_TRUE(Exists(file));  // Left alone.
  // A stale socket: serve takes its place and answers on it.
  std::string stale = folder.Path("stale.sock");
  MakeStaleSocket(stale);
  UringloadServer replacing({"--unix", stale});
  ASSERT_TRUE(replacing.ok());
  ExpectAllOk(RunUringload({"-n", "100", "--unix", stale, "http://localhost/"}), 100);
  // The first server still has its socket, untouched by the refused one.
  ExpectAllOk(RunUringload({"-n", "100", "--unix", live, "http://localhost/"}), 100);
}

}  // namespace
}  // namespace uringload::testing
