// ServerCounters: serve's counter table (core/counter_table.h): one row per single-number
// counter of ServerRunStats. ServerStats keeps the live counter at the row's index; its
// snapshot, ServerRunStats::Merge, the JSON summary and the Prometheus collector go by the
// rows.
#pragma once

#include <iterator>

#include "core/counter_table.h"
#include "core/serve/server_run_stats.h"

namespace uringload::core {

using ServerCounterRow = CounterRowOf<ServerRunStats>;

inline constexpr ServerCounterRow kServerCounters[] = {
    {&ServerRunStats::requests_received, "requests", "received", "uringload_server_requests_total",
     "Requests received"},
    {&ServerRunStats::requests_answered, "requests", "answered", "uringload_server_responses_total",
     "Complete responses sent (200 or --fault-status)"},
    {&ServerRunStats::bad_requests, "requests", "bad", "", ""},
    {&ServerRunStats::connections_accepted, "connections", "accepted",
     "uringload_server_connections_accepted_total", "Connections accepted"},
    {&ServerRunStats::connections_peak, "connections", "peak", "", ""},
    {&ServerRunStats::table_full, "connections", "table_full",
     "uringload_server_connections_refused_total",
     "Connections dropped because a descriptor table was full"},
    {&ServerRunStats::pipeline_overflow, "connections", "pipeline_overflow", "", ""},
    {&ServerRunStats::connections_open, "", "", "uringload_server_connections_open",
     "Server connections open", CounterMerge::kSum, false, /*gauge=*/true},
    {&ServerRunStats::tls_handshakes, "tls", "handshakes", "", ""},
    {&ServerRunStats::tls_no_close_notify, "tls", "closed_without_close_notify", "", ""},
    {&ServerRunStats::bytes_received, "bytes", "received", "uringload_server_bytes_received_total",
     "HTTP bytes received"},
    {&ServerRunStats::bytes_sent, "bytes", "sent", "uringload_server_bytes_sent_total",
     "HTTP bytes sent"},
};

}  // namespace uringload::core
