// gRPC end to end: `run --grpc` against a server nobody here wrote (Debian's python3-grpcio,
// tests/support/grpc_server.py), which parses every request message and counts what it saw:
// exact counts by grpc-status, every message well formed, a distinct value per {i}, deadlines,
// server, client and bidirectional streaming, TLS, shards and merge, serve's echo, and bad input
// that exits 2 before any call.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/e2e/uringload_runner.h"
#include "tests/e2e/uringload_server.h"
#include "tests/support/grpc_server.h"
#include "tests/support/process.h"
#include "tests/support/temp_folder.h"
#include "tests/support/tls_certs.h"

namespace uringload::testing {
namespace {

std::vector<std::string> Call(const std::string& method, const GrpcServer& server,
                              std::vector<std::string> rest) {
  std::vector<std::string> args = {"--grpc", method, "--proto", ShopProto()};
  args.insert(args.end(), rest.begin(), rest.end());
  args.push_back(server.Url());
  return args;
}

// Every 10th call aborted UNAVAILABLE by the server: 900 OK and 100 UNAVAILABLE, each an ok
// outcome; the server parsed 1,000 well-formed messages with 1,000 distinct users.
TEST(GrpcE2ETest, UnaryCallsAreCountedExactlyByStatus) {
  GrpcServer server({"--abort-every", "10"});
  ASSERT_TRUE(server.ok());
  RunOutput run = RunUringload(
      Call("shop.Carts/Get", server,
           {"--body", R"({"user": "u{i}", "count": "{i}"})", "-n", "1000", "-c", "4", "-p", "8",
            "--fail-if", "grpc_status{code=UNAVAILABLE}>0", "--fail-if", "grpc_error_rate>20%"}));
  EXPECT_EQ(run.process.exit_code, 3) << run.process.err;  // UNAVAILABLE came: the first fails.
  EXPECT_EQ(JsonCount(run.json, "requests.started"), 1000u);
  EXPECT_EQ(JsonCount(run.json, "outcomes.ok"), 1000u) << ErrorsOf(run.json);
  EXPECT_EQ(JsonCount(run.json, "status_codes.200"), 1000u);
  EXPECT_EQ(JsonCount(run.json, "grpc.calls"), 1000u);
  EXPECT_EQ(JsonCount(run.json, "grpc.errors"), 100u);
  EXPECT_EQ(JsonCount(run.json, "grpc.status.OK"), 900u);
  EXPECT_EQ(JsonCount(run.json, "grpc.status.UNAVAILABLE"), 100u);
  EXPECT_EQ(JsonCount(run.json, "grpc.messages"), 900u);  // An aborted call has none.
  EXPECT_EQ(run.json["thresholds.0.failed"], "true");
  EXPECT_EQ(run.json["thresholds.1.failed"], "false");  // 10% of the calls.
  FlatJson seen = server.Stop();
  EXPECT_EQ(JsonCount(seen, "calls"), 1000u);
  EXPECT_EQ(JsonCount(seen, "well_formed"), 1000u);
  EXPECT_EQ(JsonCount(seen, "malformed"), 0u);
  EXPECT_EQ(JsonCount(seen, "aborted"), 100u);
  EXPECT_EQ(JsonCount(seen, "distinct_users"), 1000u);
  EXPECT_EQ(JsonCount(seen, "deadlines"), 1000u);  // grpc-timeout on every call.
  // The summary names the statuses.
  GrpcServer fresh;
  ASSERT_TRUE(fresh.ok());
  ProcessResult summary = RunProcess({UringloadBinary(), "run", "--grpc", "shop.Carts/Get",
                                      "--proto", ShopProto(), "-n", "20", "-c", "2", fresh.Url()});
  EXPECT_EQ(summary.exit_code, 0) << summary.err;
  EXPECT_NE(summary.out.find("gRPC status: OK 20; 20 messages received (1.00 a call)"),
            std::string::npos)
      << summary.out;
}

// Server streaming: each call's messages counted, every call OK.
TEST(GrpcE2ETest, ServerStreamingCallsCountTheirMessages) {
  GrpcServer server({"--stream", "5"});
  ASSERT_TRUE(server.ok());
  RunOutput run =
      RunUringload(Call("shop.Carts.Watch", server,
                        {"--body", R"({"user": "w{i}"})", "-n", "200", "-c", "2", "-p", "4"}));
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  EXPECT_EQ(JsonCount(run.json, "outcomes.ok"), 200u) << ErrorsOf(run.json);
  EXPECT_EQ(JsonCount(run.json, "grpc.status.OK"), 200u);
  EXPECT_EQ(JsonCount(run.json, "grpc.messages"), 1000u);
  // The first of five messages comes no later than the call's end.
  EXPECT_GT(JsonNumber(run.json, "grpc.first_message_seconds.p50"), 0);
  EXPECT_LE(JsonNumber(run.json, "grpc.first_message_seconds.p50"),
            JsonNumber(run.json, "latency_seconds.p50"));
  FlatJson seen = server.Stop();
  EXPECT_EQ(JsonCount(seen, "well_formed"), 200u);
  EXPECT_EQ(JsonCount(seen, "distinct_users"), 200u);
}

// Client streaming and bidirectional calls send --stream-messages messages each, every one
// parsed by the server: a client-streaming call gets one answer, a bidirectional one an answer
// for each message, written while the client may still be sending.
TEST(GrpcE2ETest, StreamingCallsSendEveryMessage) {
  GrpcServer server;
  ASSERT_TRUE(server.ok());
  RunOutput upload = RunUringload(Call("shop.Carts/Upload", server,
                                       {"--body", R"({"user": "u{i}"})", "--stream-messages", "10",
                                        "-n", "100", "-c", "2", "-p", "4"}));
  ASSERT_EQ(upload.process.exit_code, 0) << upload.process.err;
  EXPECT_EQ(JsonCount(upload.json, "grpc.status.OK"), 100u) << ErrorsOf(upload.json);
  EXPECT_EQ(JsonCount(upload.json, "grpc.messages"), 100u);
  RunOutput chat =
      RunUringload(Call("shop.Carts/Chat", server,
                        {"--body", R"({"user": "c{i}", "count": "{i}"})", "--stream-messages", "7",
                         "-n", "100", "-c", "2", "-p", "4"}));
  ASSERT_EQ(chat.process.exit_code, 0) << chat.process.err;
  EXPECT_EQ(JsonCount(chat.json, "grpc.status.OK"), 100u) << ErrorsOf(chat.json);
  EXPECT_EQ(JsonCount(chat.json, "grpc.messages"), 700u);
  FlatJson seen = server.Stop();
  EXPECT_EQ(JsonCount(seen, "calls"), 200u);
  EXPECT_EQ(JsonCount(seen, "well_formed"), 1000u + 700u);
  EXPECT_EQ(JsonCount(seen, "malformed"), 0u);
  EXPECT_EQ(JsonCount(seen, "most_messages"), 10u);
  EXPECT_EQ(JsonCount(seen, "distinct_users"), 200u);  // Each call's messages are its own {i}.
}

// serve --grpc-echo answers each call with the messages it sent; more than 4 MiB of them is
// RESOURCE_EXHAUSTED, as a gRPC server's default largest message.
TEST(GrpcE2ETest, ServeEchoesEveryMessageOfACall) {
  UringloadServer server({"--grpc-echo"});
  ASSERT_TRUE(server.ok());
  std::string url = server.Url("/");
  url.pop_back();  // http://127.0.0.1:PORT
  RunOutput run = RunUringload({"--grpc", "shop.Carts/Chat", "--proto", ShopProto(), "--body",
                                R"({"user": "u{i}"})", "--stream-messages", "4", "-n", "500", "-c",
                                "4", "-p", "8", url});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  EXPECT_EQ(JsonCount(run.json, "grpc.status.OK"), 500u) << ErrorsOf(run.json);
  EXPECT_EQ(JsonCount(run.json, "grpc.messages"), 2000u);
  // 5,000 messages of about 1 KiB: over 4 MiB.
  std::string big = R"({"user": ")" + std::string(1000, 'x') + R"("})";
  RunOutput over = RunUringload({"--grpc", "shop.Carts/Upload", "--proto", ShopProto(), "--body",
                                 big, "--stream-messages", "5000", "-n", "3", "-c", "1", url});
  ASSERT_EQ(over.process.exit_code, 0) << over.process.err;
  EXPECT_EQ(JsonCount(over.json, "grpc.status.RESOURCE_EXHAUSTED"), 3u) << ErrorsOf(over.json);
  FlatJson summary;
  ASSERT_EQ(server.Stop(&summary), 0);
  EXPECT_EQ(JsonCount(summary, "requests.received"), 503u);
}

// --timeout is the call's deadline (grpc-timeout): a server slower than it ends each call
// either with its own DEADLINE_EXCEEDED or with the client's timeout, whichever comes first;
// every call is one of the two.
TEST(GrpcE2ETest, TheTimeoutIsTheCallsDeadline) {
  GrpcServer server({"--delay-ms", "400"});
  ASSERT_TRUE(server.ok());
  RunOutput run =
      RunUringload(Call("shop.Carts/Get", server, {"-n", "20", "-c", "4", "--timeout", "100ms"}));
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  uint64_t expired = JsonCount(run.json, "grpc.status.DEADLINE_EXCEEDED");
  EXPECT_EQ(JsonCount(run.json, "outcomes.ok"), expired);
  EXPECT_EQ(JsonCount(run.json, "grpc.calls"), expired);
  EXPECT_EQ(expired + JsonCount(run.json, "outcomes.timeout"), 20u) << ErrorsOf(run.json);
  FlatJson seen = server.Stop();
  EXPECT_EQ(JsonCount(seen, "calls"), 20u);
  EXPECT_EQ(JsonCount(seen, "deadlines"), 20u);
}

// Over TLS (ALPN h2), in two shards merged: the shards' calls add up to the server's, each
// index once.
TEST(GrpcE2ETest, ShardsOverTlsMergeToTheServersCount) {
  ASSERT_TRUE(SharedCert().ok());
  GrpcServer server(
      {"--tls-cert", SharedCert().cert(), "--tls-key", SharedCert().key(), "--abort-every", "7"});
  ASSERT_TRUE(server.ok());
  TempFolder folder("uringload-grpc-shards");
  std::vector<std::string> files;
  for (const char* shard : {"0/2", "1/2"}) {
    std::string json = folder.Path(std::string("shard-") + shard[0] + ".json");
    ProcessResult r = RunProcess({UringloadBinary(),
                                  "run",
                                  "--grpc",
                                  "shop.Carts/Get",
                                  "--proto",
                                  ShopProto(),
                                  "--cacert",
                                  SharedCert().cert(),
                                  "--body",
                                  R"({"user": "s{i}"})",
                                  "-n",
                                  "700",
                                  "-c",
                                  "3",
                                  "--shard",
                                  shard,
                                  "--run-id",
                                  "grpc-shards",
                                  "--json",
                                  json,
                                  "-q",
                                  server.Url()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    files.push_back(json);
  }
  std::string merged_json = folder.Path("merged.json");
  ProcessResult merged =
      RunProcess({UringloadBinary(), "merge", files[0], files[1], "--json", merged_json, "-q"}, 60);
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  FlatJson j = ReadFlatJson(merged_json);
  EXPECT_EQ(JsonCount(j, "outcomes.ok"), 700u);
  EXPECT_EQ(JsonCount(j, "grpc.status.OK"), 600u);
  EXPECT_EQ(JsonCount(j, "grpc.status.UNAVAILABLE"), 100u);
  EXPECT_EQ(JsonCount(j, "connections.protocols.h2"), JsonCount(j, "connections.opened"));
  FlatJson seen = server.Stop();
  EXPECT_EQ(JsonCount(seen, "calls"), 700u);
  EXPECT_EQ(JsonCount(seen, "distinct_users"), 700u);
}

// serve --grpc answers any method: OK with an empty message, or its faults as gRPC statuses
// and resets, counted alike on both sides.
TEST(GrpcE2ETest, ServeAnswersCallsWithItsFaultsAsStatuses) {
  UringloadServer server({"--grpc", "--fault-status", "14", "--fault-status-rate", "0.1",
                          "--fault-rst-stream", "0.05", "--seed", "5"});
  ASSERT_TRUE(server.ok());
  constexpr uint64_t kN = 5000;
  std::string url = server.Url("/");
  url.pop_back();  // http://127.0.0.1:PORT
  RunOutput run =
      RunUringload({"--grpc", "shop.Carts/Get", "--proto", ShopProto(), "--body",
                    R"({"user": "u{i}"})", "-n", std::to_string(kN), "-c", "8", "-p", "16", url});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  FlatJson summary;
  ASSERT_EQ(server.Stop(&summary), 0);
  uint64_t unavailable = JsonCount(summary, "faults.status");
  uint64_t resets = JsonCount(summary, "faults.rst_stream");
  EXPECT_GT(unavailable, kN / 20);  // ~10%: the fault really happened.
  EXPECT_GT(resets, kN / 50);
  EXPECT_EQ(JsonCount(run.json, "grpc.status.UNAVAILABLE"), unavailable);
  EXPECT_EQ(JsonCount(run.json, "outcomes.reset"), resets) << ErrorsOf(run.json);
  EXPECT_EQ(JsonCount(run.json, "grpc.status.OK"), kN - unavailable - resets);
  EXPECT_EQ(JsonCount(run.json, "grpc.messages"), kN - unavailable - resets);
  EXPECT_EQ(JsonCount(run.json, "outcomes.ok"), kN - resets);
  EXPECT_EQ(JsonCount(summary, "requests.received"), kN);
}

// A flow of gRPC calls: a user from --data, the answer's first item taken (json:/items/0, read
// from the protobuf message) into the next call's metadata and message, a field checked; and
// a step expecting another grpc-status aborts every iteration there.
TEST(GrpcE2ETest, FlowsCarryAnAnswersFieldIntoTheNextCall) {
  GrpcServer server;
  ASSERT_TRUE(server.ok());
  TempFolder folder("uringload-grpc-flow");
  std::string users = "user\n";
  for (int k = 0; k < 50; ++k) users += "u" + std::to_string(k) + "\n";
  std::string data = folder.Write("users.csv", users);
  std::string url = server.Url();
  std::string flow = folder.Write("flow.yaml", R"(flow:
  - name: get
    grpc: shop.Carts/Get )" + url + R"(
    body: '{"user": "{user}", "count": "{i}"}'
    expect: {grpc_status: OK}
    extract: {item: 'json:/items/0'}
  - name: again
    grpc: shop.Carts/Get )" + url + R"(
    headers: {authorization: 'Bearer {item}'}
    body: '{"user": "again-{item}"}'
    expect: {grpc_status: [OK, UNAVAILABLE]}
  - name: fixed
    grpc: shop.Carts.Get )" + url + R"(
    body: '{"user": "ann"}'
    expect: {json: {/items/0: ann}}
)");
  RunOutput run = RunUringload(
      {"--flow", flow, "--proto", ShopProto(), "--data", data, "-n", "100", "-c", "4"});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
  EXPECT_EQ(JsonCount(run.json, "iterations.completed"), 100u) << ErrorsOf(run.json);
  EXPECT_EQ(JsonCount(run.json, "grpc.status.OK"), 300u);
  EXPECT_EQ(JsonCount(run.json, "outcomes.ok"), 300u);
  FlatJson seen = server.Stop();
  EXPECT_EQ(JsonCount(seen, "calls"), 300u);
  EXPECT_EQ(JsonCount(seen, "well_formed"), 300u);
  EXPECT_EQ(JsonCount(seen, "bearers"), 100u);  // Step 2's metadata carried step 1's item.
  EXPECT_EQ(JsonCount(seen, "distinct_users"), 50u + 50u + 1u);  // uK, again-uK, ann.

  GrpcServer second;
  ASSERT_TRUE(second.ok());
  std::string wrong = folder.Write("wrong.yaml", R"(flow:
  - name: get
    grpc: shop.Carts/Get )" + second.Url() + R"(
    body: '{"user": "bob"}'
    expect: {grpc_status: NOT_FOUND}
  - name: never
    grpc: shop.Carts/Get )" + second.Url() + R"(
)");
  RunOutput failed = RunUringload({"--flow", wrong, "--proto", ShopProto(), "-n", "20", "-c", "2"});
  ASSERT_EQ(failed.process.exit_code, 0) << failed.process.err;
  EXPECT_EQ(JsonCount(failed.json, "iterations.aborted"), 20u);
  EXPECT_EQ(JsonCount(failed.json, "outcomes.check_failed"), 20u);
  EXPECT_EQ(JsonCount(failed.json, "by_target.0.check_failed_causes.grpc-status not expected"),
            20u);
  EXPECT_EQ(JsonCount(second.Stop(), "calls"), 20u);  // The second step never went out.
}

// Bad input: one line, exit 2, and the server never sees a call.
TEST(GrpcE2ETest, BadInputExitsTwoBeforeAnyCall) {
  GrpcServer server;
  ASSERT_TRUE(server.ok());
  TempFolder folder("uringload-grpc-bad");
  std::string broken =
      folder.Write("broken.proto", "syntax = \"proto3\";\nmessage A { int32 x = 1 }\n");
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  std::vector<Case> cases = {
      {{"--grpc", "shop.Carts/Put", "--proto", ShopProto()}, "shop.Carts has no method Put"},
      {{"--grpc", "shop.Carts/Get", "--proto", ShopProto(), "--body", "{\n  \"usr\": 1}"},
       "line 2"},
      {{"--grpc", "shop.Carts/Get", "--proto", ShopProto(), "--body", R"({"count": "n{i}"})"},
       "count"},
      {{"--grpc", "shop.Carts/Get", "--proto", broken}, "broken.proto:2:"},
      {{"--grpc", "shop.Carts/Get"}, "--proto FILE or --protoset FILE"},
      {{"--proto", ShopProto()}, "need --grpc"},
      {{"--grpc", "shop.Carts/Get", "--proto", ShopProto(), "--http1.1"}, "no --http1.1"},
      {{"--grpc", "shop.Carts/Get", "--proto", ShopProto(), "--http3"}, "--http3 excludes"},
      {{"--grpc", "shop.Carts/Get", "--proto", ShopProto(), "-m", "PUT"}, "no -m"},
      {{"--grpc", "shop.Carts/Get", "--proto", ShopProto(), "--stream-messages", "2"},
       "takes one request message"},
      {{"--grpc", "shop.Carts/Chat", "--proto", ShopProto(), "--stream-messages", "0"},
       "--stream-messages"},
      {{"--grpc", "shop.Carts/Chat", "--proto", ShopProto(), "--body",
        R"({"user": "u{i}xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"})",
        "--stream-messages", "1000000"},
       "at most 67108864"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> argv = {UringloadBinary(), "run"};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    argv.push_back(server.Url());
    ProcessResult r = RunProcess(argv);
    EXPECT_EQ(r.exit_code, 2) << c.says << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  // A flow's grpc steps: the schema, the answer's fields and what a protobuf answer cannot do.
  auto flow = [&](const std::string& name, const std::string& step) {
    return folder.Write(name, "flow:\n  - grpc: shop.Carts/Get " + server.Url() + "\n" + step);
  };
  std::vector<Case> flows = {
      {{"--flow", flow("a.yaml", "")}, "needs the service's schema: --proto or --protoset"},
      {{"--flow", flow("h3.yaml", ""), "--proto", ShopProto(), "--http3"}, "--http3 excludes"},
      {{"--flow", flow("b.yaml", "    extract: {x: 'json:/itemz/0'}\n"), "--proto", ShopProto()},
       "shop.Cart has no field 'itemz'"},
      {{"--flow", flow("c.yaml", "    extract: {x: 'json:/items'}\n"), "--proto", ShopProto()},
       "items is repeated: add an index"},
      {{"--flow", flow("d.yaml", "    expect: {body_contains: x}\n"), "--proto", ShopProto()},
       "not text"},
      {{"--flow", flow("e.yaml", "    expect: {grpc_status: FINE}\n"), "--proto", ShopProto()},
       "'FINE' is no gRPC status"},
      {{"--flow", flow("f.yaml", "    body: '{\"usr\": 1}'\n"), "--proto", ShopProto()}, "usr"},
      {{"--flow", flow("g.yaml", ""), "--proto", ShopProto(), "--http1.1"}, "no --http1.1"},
      {{"--flow", flow("h.yaml", ""), "--proto", ShopProto(), "--protoset", ShopProto()},
       "not both"},
      {{"--flow", folder.Write("http.yaml", "flow:\n  - request: GET " + server.Url() + "/\n"),
        "--proto", ShopProto()},
       "no step is a grpc call"},
  };
  for (const Case& c : flows) {
    std::vector<std::string> argv = {UringloadBinary(), "run"};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    ProcessResult r = RunProcess(argv);
    EXPECT_EQ(r.exit_code, 2) << c.says << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  ProcessResult path = RunProcess({UringloadBinary(), "run", "--grpc", "shop.Carts/Get", "--proto",
                                   ShopProto(), server.Url() + "/x"});
  EXPECT_EQ(path.exit_code, 2) << path.err;
  EXPECT_NE(path.err.find("the URL is only http[s]://host:port"), std::string::npos) << path.err;
  FlatJson seen = server.Stop();
  EXPECT_EQ(JsonCount(seen, "calls"), 0u);
}

}  // namespace
}  // namespace uringload::testing
