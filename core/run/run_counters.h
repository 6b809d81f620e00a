// RunCounters: the client's counter table (core/counter_table.h): one row per counter of a run
// that is a single number. WorkerStats keeps the live counter at the row's index; its
// snapshot, RunStats::Merge, the JSON writer and reader (and so `merge`) and the Prometheus
// collector go by the rows: a counter is added with a row and the call that counts it.
#pragma once

#include <iterator>

#include "core/counter_table.h"
#include "core/run/run_stats.h"

namespace uringload::core {

using CounterRow = CounterRowOf<RunStats>;

inline constexpr CounterRow kRunCounters[] = {
    {&RunStats::started, "requests", "started", "uringload_requests_started_total",
     "Requests started"},
    {&RunStats::late_starts, "requests", "late_starts", "uringload_late_starts_total",
     "Open model: requests due while every connection was busy"},
    {&RunStats::retried, "requests", "retried", "uringload_requests_retried_total",
     "Sends of a request after its first: refused unprocessed (HTTP/2, HTTP/3), refused "
     "0-RTT data, or pipelined behind a response that closed the connection"},
    {&RunStats::warmup_started, "warmup", "requests", "uringload_warmup_requests_total",
     "Requests started during --warmup (not measured)"},
    {&RunStats::warmup_completed, "", "", "", ""},
    {&RunStats::bytes_sent, "bytes", "sent", "uringload_bytes_sent_total", "HTTP bytes sent"},
    {&RunStats::bytes_received, "bytes", "received", "uringload_bytes_received_total",
     "HTTP bytes received"},
    {&RunStats::connections_opened, "connections", "opened", "", ""},
    {&RunStats::connections_peak, "connections", "peak", "", ""},
    {&RunStats::ramp_ns, "connections", "ramp_seconds", "", "", CounterMerge::kMax,
     /*nanoseconds=*/true},
    {&RunStats::preconnected, "connections", "preconnected", "", ""},
    {&RunStats::connections_http2, "connections/protocols", "h2", "", ""},
    {&RunStats::connections_http3, "connections/protocols", "h3", "", ""},
    {&RunStats::streams_capped_at, "connections", "streams_capped_at", "", "",
     CounterMerge::kLeastNonZero},
    {&RunStats::connections_open, "", "", "uringload_connections_open", "Client connections open",
     CounterMerge::kSum, false, /*gauge=*/true},
    {&RunStats::start_skew_ns, "", "", "", "", CounterMerge::kMax, true},
    {&RunStats::stream_responses, "streams", "responses", "uringload_stream_responses_total",
     "--stream: ok responses that carried events", CounterMerge::kSum, false, false, "responses"},
    {&RunStats::stream_events, "streams", "events", "uringload_stream_events_total",
     "--stream: events received (server-sent events, NDJSON lines)", CounterMerge::kSum, false,
     false, "events"},
    {&RunStats::stream_done, "streams", "done", "uringload_stream_done_total",
     "--stream: responses whose stream ended with data: [DONE]", CounterMerge::kSum, false, false,
     "ended with [DONE]"},
    {&RunStats::llm_answers, "llm", "answers", "uringload_llm_answers_total",
     "--llm: ok answers whose tokens were read", CounterMerge::kSum, false, false, "answers"},
    {&RunStats::llm_output_tokens, "llm", "output_tokens", "uringload_llm_output_tokens_total",
     "--llm: output tokens (from the usage chunk, else the content deltas)", CounterMerge::kSum,
     false, false, "output tokens"},
    {&RunStats::llm_input_tokens, "llm", "input_tokens", "uringload_llm_input_tokens_total",
     "--llm: input tokens (from the usage chunk)", CounterMerge::kSum, false, false,
     "input tokens"},
    {&RunStats::llm_usage, "llm", "usage_reported", "uringload_llm_usage_reported_total",
     "--llm: answers whose usage chunk came", CounterMerge::kSum, false, false,
     "with the server's usage"},
    {&RunStats::llm_good, "llm", "good", "uringload_llm_good_total",
     "--llm: answers that met every --goodput bound", CounterMerge::kSum, false, false,
     "within every --goodput bound"},
    {&RunStats::tls_handshakes, "tls", "handshakes", "uringload_tls_handshakes_total",
     "TLS handshakes completed"},
    {&RunStats::tls_resumed, "tls", "resumed", "uringload_tls_resumed_total",
     "TLS handshakes that resumed a session"},
    {&RunStats::quic_packets_sent, "quic", "packets_sent", "uringload_quic_packets_sent_total",
     "HTTP/3: QUIC packets (UDP datagrams) sent", CounterMerge::kSum, false, false, "packets sent"},
    {&RunStats::quic_packets_received, "quic", "packets_received",
     "uringload_quic_packets_received_total", "HTTP/3: QUIC packets (UDP datagrams) received",
     CounterMerge::kSum, false, false, "received"},
    {&RunStats::quic_packets_lost, "quic", "packets_lost", "uringload_quic_packets_lost_total",
     "HTTP/3: QUIC packets sent that QUIC declared lost (their data went again in new "
     "packets)",
     CounterMerge::kSum, false, false, "declared lost (their data sent again)"},
    {&RunStats::quic_zero_rtt_attempted, "quic", "zero_rtt_attempted",
     "uringload_quic_zero_rtt_attempted_total",
     "HTTP/3 --0rtt: reconnects that sent their requests in 0-RTT", CounterMerge::kSum, false,
     false, "reconnects sent their requests in 0-RTT"},
    {&RunStats::quic_zero_rtt_accepted, "quic", "zero_rtt_accepted",
     "uringload_quic_zero_rtt_accepted_total",
     "HTTP/3 --0rtt: of them, those whose early data the server took", CounterMerge::kSum, false,
     false, "had it taken"},
    {&RunStats::grpc_messages, "grpc", "messages", "uringload_grpc_messages_total",
     "Messages of the ok gRPC calls' responses"},
    {&RunStats::iterations_started, "iterations", "started", "uringload_iterations_started_total",
     "Flow iterations begun"},
    {&RunStats::iterations_completed, "iterations", "completed", "", ""},
    {&RunStats::iterations_aborted, "iterations", "aborted", "", ""},
};

}  // namespace uringload::core
