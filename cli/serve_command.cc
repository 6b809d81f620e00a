#include "cli/serve_command.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "cli/cli_util.h"
#include "cli/command_docs.h"
#include "core/cpu_pinning.h"
#include "core/serve/server_engine.h"
#include "exporters/serve_report.h"
#include "net/listener.h"

namespace uringload::cli {
namespace {

void WarnAboutBacklog(int backlog) {
  int somaxconn = net::SomaxConn();
  if (somaxconn > 0 && somaxconn < backlog) {
    std::fprintf(stderr,
                 "uringload serve: warning: --backlog %d is capped by net.core.somaxconn = %d "
                 "(sysctl -w net.core.somaxconn=%d)\n",
                 backlog, somaxconn, backlog);
  }
}

}  // namespace

CLI::App* AddServeCommand(CLI::App& app, ServeCommandOptions& options) {
  CLI::App* serve =
      app.add_subcommand("serve", "A target HTTP/1.1 and HTTP/2 server with delays and faults");
  core::ServeOptions& o = options.serve;
  serve->add_option("--listen", o.listen,
                    absl::StrCat("ADDR:PORT or ADDR:PORT-PORT (repeatable; default ",
                                 core::kDefaultListen, " unless --unix)"));
  serve
      ->add_option("--unix", o.unix_sockets,
                   "Listen on a Unix domain socket at PATH (repeatable; a stale socket there "
                   "is replaced, any other file refused; removed on exit)")
      ->type_name("PATH");
  serve->add_option("-t,--threads", o.threads,
                    "Worker threads (default: the larger of the online CPUs and what "
                    "--max-connections needs: each ring's descriptor table holds at most "
                    "RLIMIT_NOFILE connections, with 25% headroom for SO_REUSEPORT's uneven "
                    "spread; 60000 at RLIMIT_NOFILE 20000 gives 4; with --cpus, a multiple of "
                    "the list's length)");
  serve->add_option("--cpus", o.cpus,
                    "Pin worker i to the (i mod N)-th CPU of this list (e.g. 0-3,6; default -t: "
                    "one per CPU) and give each worker the connections whose SYN arrives on its "
                    "CPU; with `run --cpus` and the same list on the same machine, a "
                    "connection stays on one CPU");
  serve
      ->add_option("--max-connections", o.max_connections,
                   "Connections to hold at once (sizes the workers' descriptor tables)")
      ->capture_default_str();
  serve->add_option("--backlog", o.backlog, "listen() backlog")->capture_default_str();
  serve->add_option("--delay", o.delay, "0, 50ms, uniform:0s-3s or exp:1.5s")
      ->capture_default_str();
  serve->add_option("--service-slots", o.service_slots,
                    "At most K requests in service at once per worker, each for its --delay; the "
                    "others wait in arrival order (a fixed --delay T: capacity K / T per worker)");
  serve->add_option("--body", o.body, "Response body (default: the path's last segment)");
  serve->add_option("--body-size", o.body_size, "Response body of N bytes");
  serve->add_option("--fault-reset", o.fault_reset, "Probability: close without answering");
  serve->add_option("--fault-partial", o.fault_partial, "Probability: half a response, close");
  serve->add_option("--fault-malformed", o.fault_malformed, "Probability: garbage status line");
  serve->add_option("--fault-stall", o.fault_stall, "Probability: never answer, hold open");
  serve->add_option("--fault-status", o.fault_status, "Status code for --fault-status-rate");
  serve->add_option("--fault-status-rate", o.fault_status_rate,
                    "Probability: answer --fault-status instead of 200");
  serve->add_option("--fault-no-close-notify", o.fault_no_close_notify,
                    "Probability: close without answering and, over TLS, without close_notify");
  serve->add_flag("--http2", o.http2,
                  "HTTP/2: h2c with prior knowledge on plain listeners (instead of HTTP/1.1); "
                  "over TLS, h2 or HTTP/1.1 as the client's ALPN allows");
  serve->add_flag("--http3", o.http3,
                  "HTTP/3 over QUIC on UDP (the --listen ports), with --tls-cert and --tls-key; "
                  "one thread; every fault (--fault-reset is a CONNECTION_CLOSE, "
                  "--fault-no-close-notify a stateless reset); --http2-goaway-after sends HTTP/3's "
                  "GOAWAY");
  serve->add_flag("--grpc", o.grpc,
                  "gRPC over HTTP/2 (implies --http2): every call, whatever its method, is "
                  "answered with an empty message and grpc-status OK; --fault-status is then a "
                  "gRPC status (14: UNAVAILABLE)");
  serve->add_flag("--grpc-echo", o.grpc_echo,
                  "As --grpc, but every call is answered with the messages it sent, in order, "
                  "once it has half-closed (up to 4 MiB; more: RESOURCE_EXHAUSTED)");
  serve
      ->add_option("--http2-max-streams", o.http2_max_streams,
                   "HTTP/2: the SETTINGS_MAX_CONCURRENT_STREAMS it announces")
      ->capture_default_str();
  serve
      ->add_option("--http2-window", o.http2_window,
                   "HTTP/2: the SETTINGS_INITIAL_WINDOW_SIZE it announces (bytes a client may "
                   "send on a stream ahead of its reading)")
      ->capture_default_str();
  serve
      ->add_option("--http2-goaway-after", o.http2_goaway_after,
                   "HTTP/2 and HTTP/3: GOAWAY after this many streams of a connection (0: "
                   "never)")
      ->capture_default_str();
  serve->add_option("--fault-rst-stream", o.fault_rst_stream,
                    "Probability (HTTP/2, HTTP/3): the stream reset with INTERNAL_ERROR instead "
                    "of the response");
  serve->add_option("--tls-cert", o.tls_cert, "Serve HTTPS with this PEM certificate (chain)")
      ->type_name(kFileValue);
  serve->add_option("--tls-key", o.tls_key, "The PEM private key of --tls-cert")
      ->type_name(kFileValue);
  serve->add_option("--seed", o.seed, "Seed for delays and faults")->capture_default_str();
  serve
      ->add_option("--log-requests", o.log_requests,
                   "Write every request received to this file as it arrived, each after "
                   "a line '# request SIZE' (HTTP/2 as METHOD PATH HTTP/2 and its fields; for "
                   "checking what a client sends)")
      ->type_name(kFileValue);
  serve->add_option("--json", options.json_path, "Write the exit summary as JSON (- = stdout)")
      ->type_name(kFileValue);
  serve->add_flag("-q,--quiet", options.quiet, "Print nothing but errors");
  AddMetricsFlags(serve, options.metrics, /*with_linger=*/false);
  RequireWholeNumbers(
      serve, {"-t", "--max-connections", "--backlog", "--body-size", "--fault-status",
              "--http2-max-streams", "--http2-window", "--http2-goaway-after", "--service-slots"});
  SetRepeatPolicy(serve, {"--listen", "--unix", "--metrics-label"});
  return serve;
}

int ServeCommand(const ServeCommandOptions& options) {
  absl::StatusOr<core::ServePlan> plan = core::MakeServePlan(options.serve);
  if (!plan.ok()) return Fail(plan.status());
  for (const net::SocketAddress& address : plan->listen) {
    // A server that just exited can hold its port for a moment: the kernel tears its
    // io_uring down asynchronously, and the listener lives until the pending accept is gone
    // (seen: a restart right after SIGKILL refused under TSan). Only a holder that stays
    // for 2 s is another server.
    int type = plan->http3 ? SOCK_DGRAM : SOCK_STREAM;
    absl::Status free = net::CheckAddressFree(address, type);
    for (int i = 0; i < 40 && absl::IsFailedPrecondition(free); ++i) {
      usleep(50'000);
      free = net::CheckAddressFree(address, type);
    }
    if (!free.ok()) {
      bool usage = absl::IsFailedPrecondition(free) || absl::IsInvalidArgument(free);
      return Fail(free, usage ? kUsageError : kRuntimeError);
    }
  }
  absl::StatusOr<OutputFile> json = OutputFile::Open("--json", options.json_path);
  if (!json.ok()) return Fail(json.status());
  sigset_t signals = BlockStopSignals();  // Before the workers start: they inherit it.
  core::ServerEngine engine(*plan);
  absl::StatusOr<std::unique_ptr<MetricsSession>> metrics =
      MetricsSession::Start(options.metrics, "server", [&engine](exporters::LabelPairs labels) {
        return std::make_shared<exporters::ServeCollector>([&engine] { return engine.Snapshot(); },
                                                           std::move(labels));
      });
  if (!metrics.ok()) {
    return Fail(metrics.status(),
                absl::IsInvalidArgument(metrics.status()) ? kUsageError : kRuntimeError);
  }
  if (!options.quiet && !plan->http3) WarnAboutBacklog(plan->backlog);  // UDP has none.
  if (absl::Status s = engine.Start(); !s.ok()) return Fail(s, kRuntimeError);
  if (!options.quiet) {
    std::fprintf(stderr, "uringload serve: listening on %s with %u threads%s\n",
                 exporters::ListenSummary(*plan).c_str(), plan->threads,
                 plan->cpus.empty()
                     ? ""
                     : absl::StrCat(" on CPUs ", core::FormatCpuList(plan->cpus)).c_str());
  }
  absl::Time started = absl::Now();
  while (WaitForStopSignal(signals, 100) == 0 && !engine.Failed()) {
  }
  engine.Stop();
  if (absl::Status s = engine.Wait(); !s.ok()) return Fail(s, kRuntimeError);
  exporters::ServeReport report{
      .plan = &*plan, .stats = engine.Snapshot(), .duration = absl::Now() - started};
  if (!options.quiet && !json->is_stdout()) {
    std::cout << exporters::FormatServeSummary(report) << std::flush;
  }
  if (!json->Write(exporters::ServeReportToJson(report))) return kRuntimeError;
  if (absl::Status pushed = (*metrics)->Finish(); !pushed.ok()) return Fail(pushed, kRuntimeError);
  return 0;
}

}  // namespace uringload::cli
