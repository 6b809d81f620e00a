// End-to-end over an emulated link: `uringload run` in one network namespace, `uringload
// serve` in another, `uringload link` between them (scripts/netlab), and each number checked
// against the truth the link sets: a 25 ms one-way delay is a 50 ms round trip in every
// latency quantile, in the connect time and in the TLS handshake, over IPv4 and IPv6; 1% loss
// loses no request, shows the retransmission timeout in the tail and keeps Little's law.
// Every laboratory is gone when its test ends.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "tests/e2e/uringload_runner.h"
#include "tests/support/netlab.h"
#include "tests/support/ports.h"
#include "tests/support/tls_certs.h"

namespace uringload::testing {
namespace {

constexpr uint16_t kPort = 8080;  // The namespace is the test's own: nothing else holds it.

// `uringload serve` inside side B of `lab`, listening on its IPv4 and IPv6 addresses.
class LabServer {
 public:
  LabServer(const NetLab& lab, std::vector<std::string> flags) {
    char path[] = "/tmp/uringload-labserve-XXXXXX";
    close(mkstemp(path));
    json_ = path;
    std::vector<std::string> argv = {
        URINGLOAD_BINARY,
        "serve",
        "--quiet",
        "-t",
        "1",
        "--json",
        json_,
        "--listen",
        std::string(NetLab::kAddressB) + ":" + std::to_string(kPort),
        "--listen",
        "[" + std::string(NetLab::kAddressB6) + "]:" + std::to_string(kPort)};
    argv.insert(argv.end(), flags.begin(), flags.end());
    process_ = std::make_unique<BackgroundProcess>(NetLab::In(lab.b(), argv));
    for (int tries = 0; tries < 200 && !ok_ && process_->running(); ++tries) {
      ok_ = ListensOn(process_->pid(), kPort);
      if (!ok_) usleep(25'000);
    }
  }
  ~LabServer() { unlink(json_.c_str()); }
  bool ok() const { return ok_; }
  // SIGTERM; the requests it answered.
  uint64_t StopAndCountAnswered() {
    process_->Stop(SIGTERM);
    std::ifstream in(json_);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    absl::StatusOr<FlatJson> json = FlattenJson(text);
    return json.ok() ? JsonCount(*json, "requests.answered") : 0;
  }

 private:
  std::string json_;
  bool ok_ = false;
  std::unique_ptr<BackgroundProcess> process_;
};

// `uringload run ARGS` inside namespace `ns`, its JSON parsed.
RunOutput RunIn(const std::string& ns, std::vector<std::string> args) {
  char path[] = "/tmp/uringload-labrun-XXXXXX";
  close(mkstemp(path));
  std::vector<std::string> argv = {URINGLOAD_BINARY, "run", "--quiet", "--json", path};
  argv.insert(argv.end(), args.begin(), args.end());
  RunOutput out;
  out.process = RunProcess(NetLab::In(ns, argv), 120);
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  unlink(path);
  absl::StatusOr<FlatJson> json = FlattenJson(text);
  if (json.ok()) out.json = *json;
  return out;
}

std::string Url(const std::string& scheme, const std::string& host) {
  return scheme + "://" + host + ":" + std::to_string(kPort) + "/";
}

// The bounds: this VM's timed waits end late by 0.2 ms at the median and by 1.5 to 3 ms at
// p99 (nanosleep of 5 ms, docs/link.md); the link, client and server each wait, so the tail
// of the latency carries a few ms of the machine. The median must be within 2% of the round
// trip plus the service time, p90 within 10% and p99 within 50%.
TEST(NetLabE2ETest, A25msDelayIsA50msRoundTripOverIpv4AndIpv6) {
  SelfSignedCert cert("IP:198.18.0.2");
  NetLab lab({"--delay", "25ms"});
  ASSERT_TRUE(lab.ok());
  {
    LabServer server(lab, {});
    ASSERT_TRUE(server.ok());
    // The service time without the link: side B to its own address (the kernel's loopback).
    RunOutput local = RunIn(lab.b(), {"-n", "300", "-c", "1", Url("http", NetLab::kAddressB)});
    ExpectAllOk(local, 300);
    double service = JsonNumber(local.json, "latency_seconds.p50");
    uint64_t sent = 300;
    for (std::string host :
         {std::string(NetLab::kAddressB), "[" + std::string(NetLab::kAddressB6) + "]"}) {
      // One request at a time: each measures the link, not a queue behind another.
      RunOutput run = RunIn(lab.a(), {"-n", "100", "-c", "1", Url("http", host)});
      ExpectAllOk(run, 100);
      double expected = 0.050 + service;
      EXPECT_NEAR(JsonNumber(run.json, "latency_seconds.p50"), expected, 0.02 * expected) << host;
      EXPECT_NEAR(JsonNumber(run.json, "latency_seconds.p90"), expected, 0.1 * expected) << host;
      EXPECT_GE(JsonNumber(run.json, "latency_seconds.p99"), 0.050) << host;
      EXPECT_LE(JsonNumber(run.json, "latency_seconds.p99"), 1.5 * expected) << host;
      // A connect is one round trip (SYN, SYN-ACK): a new connection per request.
      RunOutput connects =
          RunIn(lab.a(), {"-n", "20", "-c", "1", "--no-keepalive", Url("http", host)});
      ExpectAllOk(connects, 20);
      EXPECT_NEAR(JsonNumber(connects.json, "connect_seconds.p50"), 0.050, 0.002) << host;
      sent += 120;
    }
    EXPECT_EQ(server.StopAndCountAnswered(), sent);
  }
  {
    LabServer server(lab, {"--tls-cert", cert.cert(), "--tls-key", cert.key()});
    ASSERT_TRUE(server.ok());
    RunOutput run = RunIn(lab.a(), {"-n", "20", "-c", "1", "--no-keepalive", "--cacert",
                                    cert.cert(), Url("https", NetLab::kAddressB)});
    ExpectAllOk(run, 20);
    // TLS 1.3 takes one round trip after the TCP one: ClientHello, then ServerHello to
    // Finished in one flight (resumed, as 19 of the 20 are).
    EXPECT_EQ(JsonCount(run.json, "tls.resumed"), 19u);
    EXPECT_NEAR(JsonNumber(run.json, "tls_handshake_seconds.p50"), 0.0515, 0.0015);
    EXPECT_EQ(server.StopAndCountAnswered(), 20u);
  }
  EXPECT_EQ(lab.Finish(), 0);
  EXPECT_FALSE(lab.LeftBehind());
}

TEST(NetLabE2ETest, OnePercentLossLosesNoRequestAndShowsTheRetransmissionTimeout) {
  NetLab lab({"--delay", "5ms", "--loss", "1%"});
  ASSERT_TRUE(lab.ok());
  LabServer server(lab, {});
  ASSERT_TRUE(server.ok());
  std::string timeline = lab.link_json() + ".timeline.ndjson";
  // --batch-window 0: a connection sends its next request as soon as its response is in, so
  // 20 are in flight all the time (the window would keep each idle up to 200 us a cycle).
  RunOutput run = RunIn(lab.a(), {"-n", "4000", "-c", "20", "--batch-window", "0", "--timeline",
                                  timeline, Url("http", NetLab::kAddressB)});
  ExpectAllOk(run, 4000);  // Every request once, all answered: TCP resent what was lost.
  EXPECT_EQ(server.StopAndCountAnswered(), 4000u);
  // Linux's smallest retransmission timeout is 200 ms: the requests whose packets were lost
  // waited at least that long, and more than 1% of requests lost one of their packets.
  EXPECT_GE(JsonNumber(run.json, "latency_seconds.p99"), 0.200);
  EXPECT_LT(JsonNumber(run.json, "latency_seconds.p50"), 0.020);
  // Little's law, W = L / lambda: the closed model keeps L = 20 requests in flight, lambda is
  // the rate of the whole seconds between the first and the last (no ramp, no drain). Within
  // 8%: between a response and the next request each connection waits for the client to wake,
  // on this VM 0.2 to 1 ms of a 20 ms cycle (measured 3 to 5% below L = 20).
  std::ifstream in(timeline);
  double completed = 0, seconds = 0;
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_GE(lines.size(), 4u);
  for (size_t k = 1; k + 1 < lines.size(); ++k) {
    absl::StatusOr<FlatJson> row = FlattenJson(lines[k]);
    ASSERT_TRUE(row.ok()) << lines[k];
    completed += JsonNumber(*row, "completed");
    seconds += JsonNumber(*row, "seconds");
  }
  double rate = completed / seconds;
  EXPECT_NEAR(JsonNumber(run.json, "latency_seconds.mean"), 20 / rate, 0.08 * 20 / rate);
  EXPECT_EQ(lab.Finish(), 0);
  EXPECT_FALSE(lab.LeftBehind());
  std::ifstream link_file(lab.link_json());
  std::string text((std::istreambuf_iterator<char>(link_file)), std::istreambuf_iterator<char>());
  absl::StatusOr<FlatJson> link = FlattenJson(text);
  ASSERT_TRUE(link.ok()) << text;
  EXPECT_GT(JsonCount(*link, "a_to_b.lost"), 0u);
  EXPECT_GT(JsonCount(*link, "b_to_a.lost"), 0u);
  // Every packet is counted once: forwarded, lost, or still queued when the link stopped.
  for (std::string d : {"a_to_b.", "b_to_a."}) {
    EXPECT_EQ(JsonCount(*link, d + "received"),
              JsonCount(*link, d + "forwarded") + JsonCount(*link, d + "lost") +
                  JsonCount(*link, d + "unsent") + JsonCount(*link, d + "write_failed"))
        << d;
  }
}

// A blackhole from 1.5 s to 4.5 s of a 7 s open-model run: what was in flight ends as a
// timeout, connects in the dark as connect_error (timed out), and requests are ok again once
// it is healed. Every started request has one outcome, and no ok is one the server did not
// answer.
TEST(NetLabE2ETest, ABlackholeTimesOutWhatIsInFlightAndTheRunRecovers) {
  NetLab lab({"--delay", "2ms"});
  ASSERT_TRUE(lab.ok());
  LabServer server(lab, {});
  ASSERT_TRUE(server.ok());
  std::string pid = std::to_string(lab.link_pid());
  BackgroundProcess dark(
      {"bash", "-c", "sleep 1.5; kill -USR1 " + pid + "; sleep 3; kill -USR2 " + pid});
  std::string timeline = lab.link_json() + ".timeline.ndjson";
  RunOutput run =
      RunIn(lab.a(), {"-R", "200", "-d", "7s", "-c", "100", "--timeout", "1s", "--connect-timeout",
                      "1s", "--timeline", timeline, Url("http", NetLab::kAddressB)});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  uint64_t ok = JsonCount(run.json, "outcomes.ok");
  uint64_t timeouts = JsonCount(run.json, "outcomes.timeout");
  uint64_t connect_errors = JsonCount(run.json, "outcomes.connect_error");
  EXPECT_GT(timeouts, 0u);
  EXPECT_GT(connect_errors, 0u);
  EXPECT_EQ(ok + timeouts + connect_errors + JsonCount(run.json, "outcomes.reset") +
                JsonCount(run.json, "outcomes.parse_error"),
            JsonCount(run.json, "requests.started"));
  for (int i = 0; run.json.count("errors." + std::to_string(i) + ".outcome"); ++i) {
    std::string at = "errors." + std::to_string(i);
    if (run.json.at(at + ".outcome") == "connect_error") {
      EXPECT_EQ(run.json.at(at + ".message"), "Connection timed out");
    }
  }
  // Healed: the last whole second is all ok again.
  std::ifstream in(timeline);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_GE(lines.size(), 7u);
  absl::StatusOr<FlatJson> second = FlattenJson(lines[6]);  // Seconds 6 to 7.
  ASSERT_TRUE(second.ok());
  EXPECT_GT(JsonCount(*second, "ok"), 150u);
  EXPECT_EQ(JsonCount(*second, "timeout") + JsonCount(*second, "connect_error"), 0u);
  EXPECT_LE(ok, server.StopAndCountAnswered());
  dark.Wait(10);
  EXPECT_EQ(lab.Finish(), 0);
  std::ifstream link_file(lab.link_json());
  std::string text((std::istreambuf_iterator<char>(link_file)), std::istreambuf_iterator<char>());
  absl::StatusOr<FlatJson> link = FlattenJson(text);
  ASSERT_TRUE(link.ok()) << text;
  EXPECT_GT(JsonCount(*link, "a_to_b.blackholed"), 0u);
  EXPECT_FALSE(lab.LeftBehind());
}

// The laboratory refuses names that exist, and leaves them alone.
TEST(NetLabE2ETest, RefusesANamespaceThatExists) {
  std::string name = "ul" + std::to_string(getpid()) + "-x";
  ASSERT_EQ(RunProcess({"ip", "netns", "add", name + "-b"}).exit_code, 0);
  ProcessResult lab = RunProcess(
      {URINGLOAD_SOURCE_DIR "/scripts/netlab", "--name", name, "--delay", "1ms", "--", "true"});
  EXPECT_EQ(lab.exit_code, 2);
  EXPECT_NE(lab.err.find("network namespace " + name + "-b exists"), std::string::npos) << lab.err;
  EXPECT_FALSE(std::filesystem::exists("/var/run/netns/" + name + "-a"));
  EXPECT_TRUE(std::filesystem::exists("/var/run/netns/" + name + "-b"));
  RunProcess({"ip", "netns", "del", name + "-b"});
}

}  // namespace
}  // namespace uringload::testing
