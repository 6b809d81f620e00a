// End-to-end: requests built from templates and data. `uringload serve --log-requests` writes
// every request as it arrived; the tests check each one against what its index says it must
// be: the URL, header values and body rendered from the row, Content-Length equal to the
// body's size, {rand} and {uuid} repeated by the seed, shards taking disjoint indexes, and
// --targets-order sequential arriving in the file's order; a binary body file sent byte for
// byte over every protocol.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "tests/e2e/uringload_runner.h"
#include "tests/e2e/uringload_server.h"
#include "tests/support/temp_folder.h"
#include "tests/support/tls_certs.h"

namespace uringload::testing {
namespace {

// A request as the server received it.
struct Received {
  std::string method;
  std::string target;
  std::map<std::string, std::string> headers;
  std::string body;
};

// Records "# request SIZE\n" + SIZE bytes + "\n"; each parsed (the test's own HTTP reading;
// an HTTP/2 request is logged as "METHOD PATH HTTP/2" and its fields, in the same shape).
std::vector<Received> ReadLog(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream whole;
  whole << in.rdbuf();
  std::string text = whole.str();
  std::vector<Received> requests;
  size_t at = 0;
  while (at < text.size()) {
    size_t eol = text.find('\n', at);
    EXPECT_EQ(text.compare(at, 10, "# request "), 0) << "bad record at " << at;
    if (eol == std::string::npos || text.compare(at, 10, "# request ") != 0) break;
    size_t size = std::stoul(text.substr(at + 10, eol - at - 10));
    std::string raw = text.substr(eol + 1, size);
    at = eol + 1 + size + 1;
    Received r;
    size_t head_end = raw.find("\r\n\r\n");
    std::istringstream head(raw.substr(0, head_end));
    std::string line;
    std::getline(head, line);
    std::istringstream request_line(line);
    request_line >> r.method >> r.target;
    while (std::getline(head, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      size_t colon = line.find(": ");
      std::string name = line.substr(0, colon);  // In lower case, as HTTP/2 sends names.
      std::transform(name.begin(), name.end(), name.begin(), ::tolower);
      r.headers[name] = line.substr(colon + 2);
    }
    r.body = raw.substr(head_end + 4);
    requests.push_back(r);
  }
  return requests;
}

class RequestDataE2ETest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(folder_.ok()); }
  std::string Write(const std::string& name, const std::string& text) {
    return folder_.Write(name, text);
  }
  std::string Path(const std::string& name) const { return folder_.Path(name); }
  TempFolder folder_{"uringload-data-e2e"};
};

const char kUuidV4[] = "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}";

// The body each request must carry, from its index, by the test's own reckoning.
struct Row {
  std::string user;
  std::string id;
};

// Every request of the run, checked against its index; returns index -> body.
std::map<uint64_t, std::string> CheckRendered(const std::vector<Received>& requests,
                                              const std::vector<Row>& rows, uint64_t n) {
  std::map<uint64_t, std::string> bodies;
  std::regex body_shape(std::string(R"(\{"i":(\d+),"id":(\d+),"r":(\d+),"u":")") + kUuidV4 +
                        R"("\})");
  for (const Received& r : requests) {
    uint64_t i = std::stoull(r.headers.at("x-index"));
    const Row& row = rows[i % rows.size()];
    EXPECT_EQ(r.method, "POST");
    EXPECT_EQ(r.target, "/u/" + row.user + "/" + std::to_string(i));
    EXPECT_EQ(r.headers.at("x-user"), row.user) << i;
    EXPECT_EQ(r.headers.at("content-length"), std::to_string(r.body.size())) << r.body;
    std::smatch m;
    EXPECT_TRUE(std::regex_match(r.body, m, body_shape)) << r.body;
    if (m.size() == 4) {
      EXPECT_EQ(m[1].str(), std::to_string(i));
      EXPECT_EQ(m[2].str(), row.id);
      int die = std::stoi(m[3].str());
      EXPECT_TRUE(die >= 1 && die <= 6) << r.body;
    }
    EXPECT_TRUE(bodies.emplace(i, r.body).second) << "index " << i << " twice";
  }
  EXPECT_EQ(bodies.size(), n);
  if (!bodies.empty()) {
    EXPECT_EQ(bodies.rbegin()->first, n - 1);
  }
  return bodies;
}

std::vector<std::string> TemplatedRun(const std::string& data, const std::string& url) {
  return {"-m",     "POST",
          "-H",     "X-Index: {i}",
          "-H",     "X-User: {user}",
          "--data", data,
          "--body", R"({"i":{i},"id":{id},"r":{rand:1-6},"u":"{uuid}"})",
          url};
}

TEST_F(RequestDataE2ETest, EveryRequestArrivesAsItsIndexAndRowRenderIt) {
  std::vector<Row> rows = {{"alice", "1"}, {"bob", "22"}, {"carol", "333"}};
  std::string csv = Write("users.csv", "user,id\nalice,1\n\"bob\",22\ncarol,333\n");
  std::string ndjson = Write("users.ndjson",
                             "{\"user\":\"alice\",\"id\":1}\n{\"id\":22,\"user\":\"bob\"}\n"
                             "{\"user\":\"carol\",\"id\":333}\n");
  std::map<uint64_t, std::string> first;
  // CSV and NDJSON over HTTP/1.1, and CSV over HTTP/2 (h2c): the same requests each time.
  for (const auto& [data, http2] : {std::pair{csv, false}, {ndjson, false}, {csv, true}}) {
    std::vector<std::string> serve_flags = {"--log-requests", Path("log")};
    if (http2) serve_flags.push_back("--http2");
    UringloadServer server(serve_flags);
    ASSERT_TRUE(server.ok());
    std::vector<std::string> args = {"-n", "300", "-c", "4", "-t", "2", "-p", "2"};
    if (http2) args.push_back("--http2");
    for (const std::string& a : TemplatedRun(data, server.Url("/u/{user}/{i}"))) {
      args.push_back(a);
    }
    RunOutput run = RunUringload(args);
    ExpectAllOk(run, 300);
    // Every connection spoke what the pass is about.
    EXPECT_EQ(
        JsonCount(run.json, http2 ? "connections.protocols.h2" : "connections.protocols.http/1.1"),
        JsonCount(run.json, "connections.opened"));
    FlatJson summary;
    ASSERT_EQ(server.Stop(&summary), 0);
    std::vector<Received> requests = ReadLog(Path("log"));
    ASSERT_EQ(requests.size(), 300u) << (http2 ? "h2c" : "HTTP/1.1");
    std::map<uint64_t, std::string> bodies = CheckRendered(requests, rows, 300);
    // The same seed sends the same requests, whatever the file's format or the worker.
    if (first.empty()) {
      first = bodies;
    } else {
      EXPECT_EQ(bodies, first);
    }
  }
  // Another seed draws other {rand} and {uuid} values for the same indexes.
  UringloadServer server({"--log-requests", Path("log")});
  ASSERT_TRUE(server.ok());
  FlatJson summary;
  std::vector<std::string> args = {"-n", "300", "-c", "4", "--seed", "2"};
  for (const std::string& a : TemplatedRun(csv, server.Url("/u/{user}/{i}"))) args.push_back(a);
  ExpectAllOk(RunUringload(args), 300);
  ASSERT_EQ(server.Stop(&summary), 0);
  std::map<uint64_t, std::string> reseeded = CheckRendered(ReadLog(Path("log")), rows, 300);
  size_t differ = 0;
  for (const auto& [i, body] : reseeded) differ += body != first[i];
  EXPECT_EQ(differ, 300u);  // Every uuid differs.
}

TEST_F(RequestDataE2ETest, ShardsTakeDisjointIndexesAndTheirRows) {
  std::vector<Row> rows = {{"a", "1"}, {"b", "2"}, {"c", "3"}, {"d", "4"}, {"e", "5"}};
  std::string csv = Write("rows.csv", "user,id\na,1\nb,2\nc,3\nd,4\ne,5\n");
  FlatJson summary;
  UringloadServer server({"--log-requests", Path("log")});
  ASSERT_TRUE(server.ok());
  for (const char* shard : {"0/3", "1/3", "2/3"}) {
    std::vector<std::string> args = {"-n", "100", "-c", "3", "--shard", shard};
    for (const std::string& a : TemplatedRun(csv, server.Url("/u/{user}/{i}"))) {
      args.push_back(a);
    }
    RunOutput run = RunUringload(args);
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  }
  ASSERT_EQ(server.Stop(&summary), 0);
  // Together exactly the one run's indexes 0..99, each with its row.
  CheckRendered(ReadLog(Path("log")), rows, 100);
}

TEST_F(RequestDataE2ETest, RandomRowsRepeatWithTheSeed) {
  std::string csv = Write("rows.csv", "user\nu0\nu1\nu2\nu3\nu4\nu5\nu6\nu7\nu8\nu9\n");
  std::vector<std::map<uint64_t, std::string>> picks;
  FlatJson summary;
  for (int round = 0; round < 2; ++round) {
    UringloadServer server({"--log-requests", Path("log")});
    ASSERT_TRUE(server.ok());
    ExpectAllOk(RunUringload({"-n", "200", "-c", "5", "--data", csv, "--data-order", "random", "-H",
                              "X-Index: {i}", server.Url("/{user}")}),
                200);
    ASSERT_EQ(server.Stop(&summary), 0);
    std::map<uint64_t, std::string> pick;
    for (const Received& r : ReadLog(Path("log")))
      pick[std::stoull(r.headers.at("x-index"))] = r.target;
    ASSERT_EQ(pick.size(), 200u);
    picks.push_back(pick);
  }
  EXPECT_EQ(picks[0], picks[1]);
  size_t in_order = 0;
  std::set<std::string> used;
  for (const auto& [i, target] : picks[0]) {
    in_order += target == "/u" + std::to_string(i % 10);
    used.insert(target);
  }
  EXPECT_LT(in_order, 60u);  // Not i mod 10 (a uniform pick matches it 1 time in 10).
  EXPECT_EQ(used.size(), 10u);
}

TEST_F(RequestDataE2ETest, SequentialTargetsArriveOnceEachInTheFilesOrder) {
  FlatJson summary;
  UringloadServer server({"--log-requests", Path("log")});
  ASSERT_TRUE(server.ok());
  Write("body.json", "{\"n\":{i}}");
  std::string base = server.Url("");
  std::vector<std::string> paths = {"/e", "/a", "/d", "/b", "/c", "/a"};
  std::string targets;
  for (const std::string& p : paths) targets += "GET " + base + p + "\n";
  targets += "POST " + base + "/post @body.json\n";
  std::string file = Write("targets.txt", targets);
  // A body file's placeholders are filled only when asked (--body-file-placeholders).
  RunOutput run = RunUringload(
      {"-c", "1", "--targets", file, "--targets-order", "sequential", "--body-file-placeholders"});
  ExpectAllOk(run, 7);  // No -n: the file's length.
  ASSERT_EQ(server.Stop(&summary), 0);
  std::vector<Received> requests = ReadLog(Path("log"));
  ASSERT_EQ(requests.size(), 7u);
  for (size_t k = 0; k < paths.size(); ++k) EXPECT_EQ(requests[k].target, paths[k]) << k;
  EXPECT_EQ(requests[6].target, "/post");
  EXPECT_EQ(requests[6].body, "{\"n\":6}");

  // More than the file holds is refused before any traffic.
  RunOutput more = RunUringload({"-n", "8", "--targets", file, "--targets-order", "sequential"});
  EXPECT_EQ(more.process.exit_code, 2);
  EXPECT_NE(more.process.err.find("-n 8 is more than the 7 targets"), std::string::npos)
      << more.process.err;
}

// A binary body file goes out byte for byte, braces and all ({x} is no placeholder error, {i}
// is not filled), over HTTP/1.1, HTTPS and HTTP/2 (h2c and TLS): the server logs exactly the
// file's bytes for every request. The same file as a template is refused for its {x}.
TEST_F(RequestDataE2ETest, BinaryBodyFilesGoOutByteForByte) {
  ASSERT_TRUE(SharedCert().ok());
  std::string bytes(64 * 1024, '\0');
  uint64_t state = 0x9E3779B97F4A7C15ull;
  for (char& c : bytes) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    c = static_cast<char>(state >> 56);
  }
  bytes.replace(100, 3, "{i}");
  bytes.replace(5000, 3, "{x}");
  bytes.replace(9000, 7, "{rand:}");
  std::string body = Write("upload.bin", bytes);
  struct Mode {
    const char* name;
    bool tls;
    bool http2;
  };
  for (Mode mode : {Mode{"http/1.1", false, false}, Mode{"https", true, false},
                    Mode{"h2c", false, true}, Mode{"h2", true, true}}) {
    std::string log =
        Path(std::string("log-") + (mode.tls ? "tls-" : "") + (mode.http2 ? "2" : "1"));
    std::vector<std::string> flags = {"--log-requests", log};
    if (mode.http2) flags.push_back("--http2");
    if (mode.tls) {
      flags.insert(flags.end(),
                   {"--tls-cert", SharedCert().cert(), "--tls-key", SharedCert().key()});
    }
    UringloadServer server(flags);
    ASSERT_TRUE(server.ok()) << mode.name;
    std::string url = std::string(mode.tls ? "https" : "http") +
                      "://127.0.0.1:" + std::to_string(server.port()) + "/up/{i}";
    std::vector<std::string> common = {"-n", "20", "-c", "2", mode.http2 ? "--http2" : "--http1.1"};
    if (mode.tls) common.insert(common.end(), {"--cacert", SharedCert().cert()});
    // --body-file, then a targets line's @file.
    std::vector<std::string> args = common;
    args.insert(args.end(), {"-m", "PUT", "--body-file", body, url});
    ExpectAllOk(RunUringload(args), 20);
    args = common;
    args.insert(args.end(), {"--targets", Write("targets.txt", "PUT " + url + " @upload.bin\n")});
    ExpectAllOk(RunUringload(args), 20);
    FlatJson summary;
    ASSERT_EQ(server.Stop(&summary), 0) << mode.name;
    std::vector<Received> requests = ReadLog(log);
    ASSERT_EQ(requests.size(), 40u) << mode.name;
    for (const Received& r : requests) {
      EXPECT_EQ(r.body.size(), bytes.size()) << mode.name << " " << r.target;
      EXPECT_TRUE(r.body == bytes) << mode.name << " " << r.target;
    }
  }
  RunOutput templated = RunUringload({"-m", "PUT", "--body-file", body, "--body-file-placeholders",
                                      "-n", "1", "http://127.0.0.1:1/"});
  EXPECT_EQ(templated.process.exit_code, 2);
  EXPECT_NE(templated.process.err.find("unknown placeholder {x}"), std::string::npos)
      << templated.process.err;
  RunOutput alone = RunUringload({"--body-file-placeholders", "-n", "1", "http://127.0.0.1:1/"});
  EXPECT_EQ(alone.process.exit_code, 2);
  EXPECT_NE(alone.process.err.find("--body-file-placeholders needs a body from a file"),
            std::string::npos)
      << alone.process.err;
}

// Per-target results: lines of one name= are one target, an unnamed line is its own; each
// target's requests equal what the server received on its paths, its status codes add up to
// the run's, and a --fail-if may name one. (Shards merge them exactly: RunMergeTest.)
TEST_F(RequestDataE2ETest, PerTargetResultsEqualWhatTheServerReceived) {
  FlatJson summary;
  UringloadServer server(
      {"--log-requests", Path("log"), "--fault-status", "503", "--fault-status-rate", "0.2"});
  ASSERT_TRUE(server.ok());
  std::string base = server.Url("");
  std::string file = Write("targets.txt", "GET " + base + "/login/a name=login\n" + "GET " + base +
                                              "/login/b name=login\n" + "GET " + base +
                                              "/search\n" + "POST " + base + "/buy name=buy\n");
  std::vector<std::string> names = {"login", "GET " + base + "/search", "buy"};
  // --allow-saturated: the thresholds here are about targets; a client slowed by a busy
  // machine (the generator's own check) must not fail them.
  RunOutput run =
      RunUringload({"-n", "4000", "-c", "2", "--targets", file, "--fail-if",
                    "error_rate{target=buy}>0", "--fail-if", "p99{target=login}>1h",
                    "--allow-saturated", "--interval", "10ms", "--timeline", Path("timeline.csv")});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  std::vector<uint64_t> expected = {2000, 1000, 1000};
  // The timeline's per-target columns add up to each target's requests, over several rows.
  std::ifstream timeline(Path("timeline.csv"));
  std::string line;
  ASSERT_TRUE(std::getline(timeline, line));
  std::vector<std::string> header = absl::StrSplit(line, ',');
  std::map<std::string, uint64_t> sums;
  int rows = 0;
  for (; std::getline(timeline, line); ++rows) {
    std::vector<std::string> cells = absl::StrSplit(line, ',');
    ASSERT_EQ(cells.size(), header.size()) << line;
    for (size_t k = 0; k < cells.size(); ++k) {
      uint64_t n = 0;
      if (absl::SimpleAtoi(cells[k], &n)) sums[header[k]] += n;
    }
  }
  EXPECT_GE(rows, 3);
  for (size_t t = 0; t < names.size(); ++t) {
    EXPECT_EQ(sums[names[t] + ":completed"], expected[t]) << names[t];
    EXPECT_EQ(sums[names[t] + ":ok"], expected[t]) << names[t];
  }
  EXPECT_EQ(sums["completed"], 4000u);
  uint64_t unavailable = 0;
  for (size_t t = 0; t < names.size(); ++t) {
    std::string at = "by_target." + std::to_string(t);
    EXPECT_EQ(run.json.at(at + ".name"), names[t]);
    EXPECT_EQ(JsonCount(run.json, at + ".requests"), expected[t]);
    EXPECT_EQ(JsonCount(run.json, at + ".outcomes.ok"), expected[t]);
    uint64_t codes = JsonCount(run.json, at + ".status_codes.200");
    if (run.json.count(at + ".status_codes.503")) {
      codes += JsonCount(run.json, at + ".status_codes.503");
      unavailable += JsonCount(run.json, at + ".status_codes.503");
    }
    EXPECT_EQ(codes, expected[t]);
    EXPECT_EQ(JsonCount(run.json, at + ".latency_histogram.count"), expected[t]);
  }
  EXPECT_EQ(unavailable, JsonCount(run.json, "status_codes.503"));
  EXPECT_GT(unavailable, 0u);
  // One target's threshold holds: exit 3. A target that is not there: exit 2, no traffic.
  RunOutput gated =
      RunUringload({"-n", "400", "-c", "4", "--targets", file, "--fail-if", "ok{target=buy}<200"});
  EXPECT_EQ(gated.process.exit_code, 3) << gated.process.err;
  RunOutput unknown =
      RunUringload({"-n", "400", "--targets", file, "--fail-if", "p99{target=nope}<1s"});
  EXPECT_EQ(unknown.process.exit_code, 2);
  EXPECT_NE(unknown.process.err.find("no target named 'nope' (targets: login, GET "),
            std::string::npos)
      << unknown.process.err;
  ASSERT_EQ(server.Stop(&summary), 0);
  EXPECT_EQ(JsonCount(summary, "requests.answered"), 4400u);
  // The server's log, whole once it stopped: the two runs' requests by path.
  std::map<std::string, uint64_t> received;
  for (const Received& r : ReadLog(Path("log"))) {
    ++received[r.target.starts_with("/login") ? "login" : r.target == "/buy" ? "buy" : "search"];
  }
  EXPECT_EQ(received["login"], 2200u);
  EXPECT_EQ(received["search"], 1100u);
  EXPECT_EQ(received["buy"], 1100u);
}

}  // namespace
}  // namespace uringload::testing
