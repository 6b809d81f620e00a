// End-to-end: bad invocations of `uringload run` and `serve` exit 2 with one line naming the
// problem, print nothing on stdout, and never start traffic.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/ports.h"
#include "tests/support/process.h"
#include "tests/support/temp_folder.h"
#include "tests/support/uringload_binary.h"

namespace uringload::testing {
namespace {

struct BadInvocation {
  std::vector<std::string> args;
  std::string expected;  // Part of the one-line message.
};

TEST(RunCliE2ETest, BadInputExitsTwoWithOneLine) {
  TempFolder data("uringload-cli-data");  // --data files.
  ASSERT_TRUE(data.ok());
  data.Write("empty.csv", "");
  data.Write("count.csv", "a,b\n1,2\n1,2,3\n");
  data.Write("good.csv", "user,id\nalice,1\n");
  std::vector<BadInvocation> cases = {
      {{"run", "--cacert", "/nonexistent.pem", "https://127.0.0.1/"}, "--cacert"},
      {{"run", "--ciphers", "NOPE", "https://127.0.0.1/"}, "--ciphers 'NOPE'"},
      {{"run", "-k", "URL"}, "need an https:// URL"},
      {{"serve", "--tls-cert", "/nonexistent.pem", "--tls-key", "/nonexistent.pem"}, "--tls-cert"},
      {{"serve", "--tls-cert", "/etc/hostname"}, "go together"},
      {{"run", "ftp://127.0.0.1/"}, "invalid URL"},
      {{"run", "--http3", "http://127.0.0.1/"}, "--http3 needs an https:// URL"},
      {{"run", "--http3", "--http2", "https://127.0.0.1/"}, "--http3 excludes"},
      {{"run", "--http3", "--http1.1", "https://127.0.0.1/"}, "--http3 excludes"},
      {{"run", "--http3", "--unix", "/tmp/x.sock", "https://127.0.0.1/"}, "--http3 and --unix"},
      {{"run", "--http3", "--ciphers", "HIGH", "https://127.0.0.1/"}, "--http3: --tls-max-version"},
      {{"run", "--http3", "--http2-window", "100000", "https://127.0.0.1/"}, "needs HTTP/2"},
      {{"run", "http://127.0.0.1:0/"}, "port"},
      {{"run", "http://127.0.0.1:70000/"}, "port"},
      {{"run", "-c", "0", "http://127.0.0.1/"}, "-c"},
      {{"run", "-n", "-1", "http://127.0.0.1/"}, "-n"},
      {{"run", "-n", "ten", "http://127.0.0.1/"}, "requests"},
      {{"run", "-d", "5x", "http://127.0.0.1/"}, "duration"},
      {{"run", "-H", "NoColon", "http://127.0.0.1/"}, "header"},
      {{"run", "--body-file", "/nonexistent", "http://127.0.0.1/"}, "--body-file"},
      {{"run", "--bogus", "http://127.0.0.1/"}, "bogus"},
      {{"run"}, "URL"},
      {{"run", "-R", "0", "URL"}, "-R/--rate"},
      {{"run", "-R", "fast", "URL"}, "-R/--rate"},
      {{"run", "-R", "nan", "URL"}, "-R/--rate"},
      {{"run", "--ramp", "10s", "URL"}, "--ramp needs -R"},
      {{"run", "-R", "10", "--ramp", "0s", "URL"}, "--ramp"},
      {{"run", "-p", "0", "URL"}, "-p/--pipeline"},
      {{"run", "-p", "2000", "URL"}, "-p/--pipeline"},
      {{"run", "-p", "2", "--no-keepalive", "URL"}, "keep-alive"},
      {{"run", "--targets", "/nonexistent"}, "--targets '/nonexistent'"},
      {{"run", "--targets", "/etc/hostname", "URL"}, "not both"},
      {{"run", "--targets", "/etc/hostname"}, "/etc/hostname:1: expected 'METHOD URL"},
      {{"run", "--targets-order", "shuffled", "URL"}, "--targets-order"},
      {{"run", "--fail-if", "p99>fast", "URL"}, "--fail-if 'p99>fast'"},
      {{"run", "--fail-if", "latency>1s", "URL"}, "unknown measure"},
      {{"run", "--interval", "1ms", "URL"}, "--interval"},
      {{"run", "--warmup", "5s", "-d", "5s", "URL"}, "--warmup"},
      {{"run", "--timeline", "/", "URL"}, "--timeline"},
      {{"run", "--json", "-", "--timeline", "-", "URL"}, "stdout"},
      {{}, "subcommand"},
      {{"run", "-n", "0", "URL"}, "-n"},
      {{"run", "-t", "0", "URL"}, "-t"},
      {{"run", "-t", "5000", "URL"}, "-t"},
      {{"run", "-c", "20000000", "URL"}, "-c"},
      {{"run", "-m", "G T", "URL"}, "method"},
      {{"run", "-H", "Content-Length: 5", "URL"}, "Content-Length"},
      {{"run", "--body", "a", "--body-file", "/etc/hostname", "URL"}, "--body"},
      {{"run", "--timeout", "0s", "URL"}, "--timeout"},
      {{"run", "--connect-timeout", "soon", "URL"}, "--connect-timeout"},
      {{"run", "--batch-window", "1s", "URL"}, "--batch-window"},
      {{"run", "--source", "127.0.0.9-127.0.0.1", "URL"}, "--source"},
      {{"run", "--max-connecting", "0", "URL"}, "--max-connecting"},
      {{"run", "--metrics-label", "no_equals", "URL"}, "--metrics-label"},
      {{"run", "--metrics-linger", "-1s", "URL"}, "--metrics-linger"},
      {{"run", "--push-interval", "often", "URL"}, "--push-interval"},
      {{"run", "--pushgateway", "ftp://127.0.0.1/", "URL"}, "--pushgateway"},
      {{"run", "http://[::1/"}, "IPv6"},
      {{"run", "http://user@127.0.0.1/"}, "user information"},
      {{"run", "http://no-such-host.invalid/"}, "cannot resolve"},
      {{"run", "http://127.0.0.1:9000-8000/"}, "port range"},
      {{"serve", "--listen", "8080"}, "--listen"},
      {{"serve", "--listen", "127.0.0.1:0"}, "--listen"},
      {{"serve", "--listen", "127.0.0.1:99999"}, "--listen"},
      {{"serve", "--delay", "soon"}, "--delay"},
      {{"serve", "--delay", "uniform:3s-1s"}, "--delay"},
      {{"serve", "--fault-reset", "2"}, "--fault-reset"},
      {{"serve", "--fault-stall", "0.7", "--fault-reset", "0.7"}, "more than 1"},
      {{"serve", "--fault-status-rate", "0.1"}, "--fault-status CODE"},
      {{"serve", "--fault-status", "42", "--fault-status-rate", "0.1"}, "--fault-status"},
      {{"serve", "--body", "x", "--body-size", "3"}, "--body"},
      {{"serve", "--body-size", "-1"}, "--body-size"},
      {{"serve", "-t", "0"}, "-t"},
      {{"serve", "--backlog", "0"}, "--backlog"},
      {{"serve", "--max-connections", "0"}, "--max-connections"},
      {{"serve", "--service-slots", "0"}, "--service-slots"},
      {{"serve", "--service-slots", "1000001"}, "--service-slots"},
      {{"serve", "--service-slots", "1.5"}, "--service-slots"},
      {{"serve", "--metrics-label", "__bad=x"}, "--metrics-label"},
      {{"serve", "--unknown-flag"}, "unknown-flag"},
      {{"run", "--cpus", "1023", "URL"}, "--cpus: '1023' names CPU 1023, which this process"},
      {{"run", "--cpus", "0-", "URL"}, "--cpus: '0-'"},
      {{"run", "--cpus", "", "URL"}, "--cpus: '' is empty"},
      {{"serve", "--cpus", "zero"}, "--cpus: 'zero'"},
      {{"serve", "--cpus", "0,0"}, "names CPU 0 twice"},
      // Numbers beyond the documented maxima are refused, never clamped or wrapped.
      {{"run", "-n", "99999999999999999999", "URL"}, "not a whole number"},
      {{"run", "-n", "1000000000000001", "URL"}, "-n/--requests must be between 1 and"},
      {{"run", "-c", "99999999999999999999", "URL"}, "not a whole number"},
      {{"run", "--timeout", "10000000000s", "URL"}, "--timeout: invalid duration"},
      {{"run", "--connect-timeout", "10000000000s", "URL"}, "--connect-timeout: invalid"},
      {{"run", "-d", "10000000000s", "URL"}, "-d/--duration: invalid duration"},
      {{"serve", "-t", "99999999999999999999"}, "not a whole number"},
      // Output and input files are checked before any traffic, not after the run.
      {{"run", "--json", "/nonexistent-dir/result.json", "URL"}, "--json '/nonexistent-dir"},
      {{"run", "--json", "/tmp", "URL"}, "--json '/tmp' is a directory"},
      {{"run", "--json", "/proc/sys/kernel/ostype", "URL"}, "cannot be written"},
      {{"run", "--body-file", "/tmp", "URL"}, "--body-file '/tmp': is a directory"},
      {{"serve", "--json", "/tmp"}, "--json '/tmp' is a directory"},
      {{"serve", "--json", "/nonexistent-dir/server.json"}, "--json '/nonexistent-dir"},
      {{"run", "--schedule-lag-bound", "0s", "-R", "10", "URL"}, "--schedule-lag-bound"},
      {{"run", "--busy-poll", "--batch-window", "100us", "URL"}, "--busy-poll never waits"},
      {{"search", "URL"}, "search needs at least one --slo"},
      {{"search", "--slo", "p99>1s", "URL"}, "--slo 'p99>1s': an objective bounds"},
      {{"search", "--slo", "rps<10", "URL"}, "search judges p50"},
      {{"search", "--slo", "p99<1s", "--precision", "0", "URL"}, "--precision"},
      {{"search", "--slo", "p99<1s", "--confidence", "100%", "URL"}, "--confidence"},
      {{"search", "--slo", "p99<1s", "--start-rate", "500", "--max-rate", "100", "URL"},
       "below --start-rate"},
      {{"search", "--slo", "p99<1s", "--step-duration", "0s", "URL"}, "--step-duration"},
      {{"search", "--slo", "p99<1s", "-n", "10", "URL"}, "-n"},
      {{"search", "--slo", "p99<1s", "-c", "0", "URL"}, "-c"},
      {{"search", "--slo", "p99<1s", "--json", "/tmp", "URL"}, "--json '/tmp' is a directory"},
      {{"search", "--slo", "p99<1s", "--shard", "2/2", "URL"}, "--shard: shard 2 of 2"},
      {{"search", "--slo", "p99<1s", "--shard", "0/2", "--start-at", "1", "URL"}, "--start-at"},
      {{"compare", "/etc/hostname", "/etc/hostname"}, "not a JSON object"},
      {{"compare", "--base", "/etc/hostname", "--new", "/etc/hostname"}, "at least two --base"},
      {{"compare", "--base", "a", "--base", "b", "--new", "c", "--new", "d", "e", "f"},
       "not both forms"},
      {{"compare", "/nonexistent.json", "/etc/hostname"}, "/nonexistent.json"},
      {{"compare", "--fail-if", "p99>10%", "/etc/hostname", "/etc/hostname"}, "signed percentage"},
      {{"compare", "--fail-if", "cpu_per_request>+5%", "/etc/hostname", "/etc/hostname"},
       "unknown measure"},
      {{"compare", "--confidence", "2", "/etc/hostname", "/etc/hostname"}, "--confidence"},
      {{"compare", "/etc/hostname"}, "compare takes BASE.json NEW.json"},
      {{"compare", "--run-spread", "p99=8", "/etc/hostname", "/etc/hostname"},
       "--run-spread 'p99=8': the spread is a percentage"},
      {{"compare", "--run-spread", "all=2%", "--base", "a", "--base", "b", "--new", "c", "--new",
        "d"},
       "--run-spread is for one run a side"},
      // Requests from data: every mistake before any traffic, with the file:line or the flag.
      {{"run", "--data", "/nonexistent.csv", "URL"}, "--data '/nonexistent.csv': No such file"},
      {{"run", "--data", data.Path("empty.csv"), "URL"}, "empty.csv: the file is empty"},
      {{"run", "--data", data.Path("count.csv"), "URL"},
       "count.csv:3: the row has 3 values, the header 2"},
      {{"run", "--data", data.Path("good.csv"), "URL{usr}"},
       "column 2: unknown placeholder {usr} (known: i, rand, uuid, shard, worker and the data "
       "columns user, id)"},
      {{"run", "URL{rand:9-1}"}, "{rand:9-1} has LO above HI (9 > 1)"},
      {{"run", "--body", "{\"a\":{x}}", "URL"}, "--body: column 6: unknown placeholder {x}"},
      {{"run", "-H", "X-A: {uuid:4}", "URL"}, "header 'X-A': column 1: {uuid} takes no arguments"},
      {{"run", "--data-order", "random", "URL"}, "--data-order needs --data"},
      {{"run", "--data-order", "up", "--data", data.Path("good.csv"), "URL"}, "--data-order"},
      {{"serve", "--log-requests", "/nonexistent-dir/requests.log"}, "--log-requests"},
      {{"run", "--max-target-labels", "0", "URL"}, "--max-target-labels"},
      {{"run", "--fail-if", "p99{target=login}<1s", "URL"},
       "names a target, which needs --targets"},
      {{"run", "--fail-if", "p99{tgt=login}<1s", "URL"}, "MEASURE{target=NAME}"},
  };
  SilentListener target;  // Every URL points here: nothing may connect to it.
  std::string url = "http://127.0.0.1:" + std::to_string(target.port()) + "/";
  ASSERT_GE(cases.size(), 30u);
  for (BadInvocation& c : cases) {
    for (std::string& arg : c.args) {
      if (arg.starts_with("URL")) arg = url + arg.substr(3);  // "URL{x}": a path after it.
    }
    std::vector<std::string> argv = {UringloadBinary()};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    ProcessResult r = RunProcess(argv, 10);
    std::string shown = argv.size() > 1 ? argv.back() : "(none)";
    EXPECT_EQ(r.exit_code, 2) << shown << ": " << r.err;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << shown << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << shown << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << shown;
  }
  EXPECT_EQ(target.AcceptAll(), 0) << "a bad invocation connected to the target";
}

}  // namespace
}  // namespace uringload::testing
