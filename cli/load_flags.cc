#include "cli/load_flags.h"

#include "absl/strings/str_cat.h"
#include "cli/command_docs.h"
#include "proto/http2_client_session.h"

namespace uringload::cli {

void AddLoadFlags(CLI::App* cmd, core::RunOptions& o, bool schedule) {
  cmd->add_option("url", o.url,
                  "http[s]://host[:port]/path; placeholders such as {i} (the request index) are "
                  "filled per request (see --data)");
  if (schedule) {
    cmd->add_option(
        "-n,--requests", o.requests,
        absl::StrCat("Exact number of requests (default 1000, at most ", core::kMaxRequests, ")"));
  }
  if (schedule) {
    cmd->add_option("-d,--duration", o.duration,
                    "Stop starting requests after this (e.g. 30s; at most 8760h)");
  }
  cmd->add_option("-c,--concurrency", o.concurrency,
                  absl::StrCat("Requests in flight = connections, never more than -n (at most ",
                               core::kMaxConcurrency, ")"))
      ->capture_default_str();
  cmd->add_option("-t,--threads", o.threads,
                  "Worker threads (default: online CPUs, <= C, more when one descriptor table "
                  "cannot hold C/T connections, a multiple of the --cpus list's length; at most "
                  "1024)");
  cmd->add_option("--cpus", o.cpus,
                  "Pin worker i to the (i mod N)-th CPU of this list (e.g. 0-3,6; default -t: "
                  "one per CPU); against `serve --cpus` with the same list on this machine, each "
                  "connection stays on one CPU");
  cmd->add_option("-m,--method", o.method, "Request method")->capture_default_str();
  cmd->add_option("-H,--header", o.headers,
                  "Extra header 'Name: value' (repeatable; the value may hold placeholders)");
  cmd->add_option("--body", o.body, "Request body (may hold placeholders; Content-Length follows)");
  cmd->add_option("--body-file", o.body_file,
                  "Request body read from a file, sent byte for byte (see "
                  "--body-file-placeholders)")
      ->type_name(kFileValue);
  cmd->add_flag("--body-file-placeholders", o.body_file_placeholders,
                "Fill placeholders ({i}, {column}, ...) in --body-file and targets' @file bodies "
                "too, as in --body (without it a file's bytes go out as they are)");
  cmd->add_option("--expect-status", o.expect_status,
                  "A complete response with any other status ends check_failed, not ok: codes and "
                  "classes, as 200,201 or 2xx")
      ->type_name("LIST");
  cmd->add_option("--expect-body-contains", o.expect_body_contains,
                  "A complete response whose body lacks TEXT ends check_failed, not ok (the "
                  "body as received: decoded chunks, not decompressed)")
      ->type_name("TEXT");
  cmd->add_option("--llm", o.llm,
                  "An OpenAI-compatible server's streamed answers: POST /v1/chat/completions "
                  "(chat) or /v1/completions with stream: true, prompts from --data; TTFT, ITL, "
                  "TPOT, tokens and goodput measured")
      ->type_name("chat|completions");
  cmd->add_option("--model", o.model, "With --llm: the model the server serves");
  cmd->add_option("--max-tokens", o.max_tokens,
                  "With --llm: max_tokens, a number or a --data column")
      ->capture_default_str();
  cmd->add_option("--data-field", o.data_field, "With --llm: the --data column of the prompts")
      ->capture_default_str();
  cmd->add_option("--goodput", o.goodput,
                  "With --llm, repeatable: a bound every good answer meets (ttft<200ms, "
                  "tpot<50ms, itl<100ms, e2e<10s); goodput is the share of requests within all")
      ->type_name("MEASURE<DURATION");
  cmd->add_option("--expect-events", o.expect_events,
                  "With --stream: a complete response with fewer than N events ends "
                  "check_failed, not ok");
  cmd->add_option("--timeout", o.timeout, "Per request, send to complete response (at most 24h)")
      ->capture_default_str();
  cmd->add_option("--connect-timeout", o.connect_timeout, "Per connection attempt (at most 24h)")
      ->capture_default_str();
  cmd->add_flag("--no-keepalive", o.no_keepalive, "A new connection per request");
  cmd->add_option("--source", o.source,
                  "Source addresses: 127.0.0.2,127.0.0.3, 127.0.0.2-127.0.0.9, 127.0.0.0/28, "
                  "2001:db8::2-2001:db8::9 or 2001:db8::/124");
  cmd->add_option("--unix", o.unix_socket,
                  "Connect to the Unix domain socket at PATH instead of the URL's host and port "
                  "(the URL still gives the scheme, Host and path)")
      ->type_name("PATH");
  cmd->add_option("--max-connecting", o.max_connecting, "Connects in flight per thread (ramp)")
      ->capture_default_str();
  cmd->add_option("--batch-window", o.batch_window,
                  "Max wait to batch completions, 0 = none; may add this much to latencies. "
                  "auto: 200us, and with -p a quarter of the mean latency, at most 400us")
      ->capture_default_str();
  cmd->add_flag("--busy-poll", o.busy_poll,
                "Workers poll their rings instead of sleeping: sends leave at their due time and "
                "no response waits for a wake-up, at the cost of a whole CPU per thread");
  cmd->add_option("--schedule-lag-bound", o.schedule_lag_bound,
                  "With -R: a schedule lag p99 over this marks the client saturated")
      ->capture_default_str();
  if (schedule) {
    cmd->add_option("-R,--rate", o.rate,
                    "Open model: start R requests per second in total (fractional allowed), on a "
                    "schedule; latency counts from each request's intended start");
  }
  if (schedule) {
    cmd->add_option("--ramp", o.ramp, "With -R: rise linearly from 0 to R over this (e.g. 30s)");
  }
  // Search's steps have their rate: they take it too.
  cmd->add_option("--arrival", o.arrival,
                  "Open model: even (the default: a request every 1/R s), poisson (seeded "
                  "exponential gaps of mean 1/R, see --seed) or gamma:K (gaps of shape K: "
                  "below 1 burstier, above 1 more regular)")
      ->type_name("even|poisson|gamma:K");
  cmd->add_option("--stream", o.stream,
                  "Read each response's body as a stream of events, timed as they arrive: sse "
                  "(server-sent events) or ndjson (a JSON document a line)")
      ->capture_default_str()
      ->type_name("none|sse|ndjson");
  cmd->add_option("-p,--pipeline,--streams", o.pipeline,
                  absl::StrCat("Requests in flight per connection, at most ", core::kMaxPipeline,
                               ": pipelined over HTTP/1.1, concurrent streams over HTTP/2 "
                               "and HTTP/3 (capped by the server's limit)"))
      ->capture_default_str();
  cmd->add_flag("--http2", o.http2,
                "HTTP/2 only: https:// must agree on h2 by ALPN; http:// speaks h2c with prior "
                "knowledge (default: h2 or HTTP/1.1 as an https:// server picks, HTTP/1.1 over "
                "http://)");
  cmd->add_flag("--http3", o.http3,
                "HTTP/3 over QUIC (UDP) to an https:// URL: -p streams per connection, capped by "
                "the server's limit; -k and --cacert as over TCP");
  cmd->add_flag("--0rtt", o.zero_rtt,
                "--http3: a reconnect that resumes a session sends its requests in 0-RTT, before "
                "the handshake ends, when the server's ticket allows it (counted; refused early "
                "data is sent again after the handshake)");
  cmd->add_option("--http2-window", o.http2_window,
                  absl::StrCat("HTTP/2: the receive window the client announces per stream and "
                               "for the connection, in bytes (default ",
                               proto::kHttp2DefaultWindow, "; HTTP/2's own initial one is 65535)"));
  cmd->add_option("--http2-header-table", o.http2_header_table,
                  absl::StrCat("HTTP/2: the HPACK table in which the client keeps the header "
                               "fields a server asks it to index, in bytes (default ",
                               proto::kHttp2DefaultHeaderTable,
                               ", HPACK's, announced all the same: nginx then keeps nothing in "
                               "it; at most ",
                               core::kMaxHttp2HeaderTable, "; 0 keeps none)"));
  cmd->add_flag("--http1.1", o.http1, "HTTP/1.1 only (https:// offers only http/1.1 by ALPN)");
  cmd->add_option("--grpc", o.grpc_method,
                  "Call this gRPC method (package.Service/Method) on the URL's server "
                  "(http[s]://host:port, over HTTP/2); the request message is the JSON of --body "
                  "or --body-file, placeholders and all; calls are counted by grpc-status")
      ->type_name("METHOD");
  cmd->add_option("--proto", o.proto_file,
                  "gRPC: the service's .proto file, its imports looked up on --import-path, then "
                  "beside it")
      ->type_name(kFileValue);
  cmd->add_option("--import-path", o.import_paths,
                  "gRPC: a folder --proto's imports are looked up in (repeatable)")
      ->type_name("DIR");
  cmd->add_option("--protoset", o.protoset_file,
                  "gRPC: the service's FileDescriptorSet (protoc --descriptor_set_out "
                  "--include_imports), instead of --proto")
      ->type_name(kFileValue);
  cmd->add_option("--stream-messages", o.stream_messages,
                  absl::StrCat("gRPC, a client-streaming or bidirectional method: the request "
                               "messages each call sends, one after the other, before it "
                               "half-closes (default 1, at most ",
                               proto::GrpcBodyTemplate::kMaxMessages, ")"))
      ->type_name("N");
  cmd->add_option("--targets", o.targets_file,
                  "Requests from a file, one per line: METHOD URL [@bodyfile] (# comments); "
                  "all on the first line's host and port; instead of a URL")
      ->type_name(kFileValue);
  cmd->add_option("--max-target-labels", o.max_target_labels,
                  absl::StrCat("Per-target results (JSON, summary, metrics) for at most this many "
                               "targets (names, or lines without one); the rest are summed as "
                               "'other' (at most ",
                               core::kMaxTargetLabels, ")"))
      ->capture_default_str();
  cmd->add_option("--targets-order", o.targets_order,
                  "round-robin, random (see --seed), or sequential: each target once in the "
                  "file's order (the file's length is the request count)")
      ->capture_default_str()
      ->type_name("round-robin|random|sequential");
  cmd->add_option("--data", o.data_file,
                  "Rows whose columns become {name} placeholders: CSV with a header line, or "
                  "NDJSON (.ndjson, .jsonl) of flat objects; request k takes row k mod rows")
      ->type_name(kFileValue);
  cmd->add_option("--data-order", o.data_order,
                  "sequential (row k mod rows) or random (a seeded row per request)")
      ->capture_default_str()
      ->type_name("sequential|random");
  cmd->add_option("--seed", o.seed,
                  "Seed of {rand}, {uuid}, --targets-order random and --data-order random: the "
                  "same seed sends the same requests")
      ->capture_default_str();
  if (schedule) {
    cmd->add_option("--warmup", o.warmup,
                    "Requests started in this first part of the run are sent but not measured");
  }
  cmd->add_flag("-k,--insecure", o.insecure, "https: do not verify the server's certificate");
  cmd->add_option("--cacert", o.cacert, "https: trust the CAs in this PEM file (not the system's)")
      ->type_name(kFileValue);
  cmd->add_flag("--no-tls-resume", o.no_tls_resume,
                "https: a full handshake on every connection (no session tickets)");
  cmd->add_option("--tls-max-version", o.tls_max_version, "https: 1.2 or 1.3 (default 1.3)")
      ->type_name("1.2|1.3");
  cmd->add_option("--ciphers", o.ciphers, "https: TLS 1.2 cipher list (OpenSSL syntax)");
  cmd->add_option("--ciphersuites", o.ciphersuites, "https: TLS 1.3 cipher suites");
}

}  // namespace uringload::cli
