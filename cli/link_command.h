// `uringload link NETNS_A/DEV_A NETNS_B/DEV_B`: a user-space link emulator between two TUN
// devices in two network namespaces (core/link): delay, jitter, loss, duplication,
// reordering and a rate cap with a drop-tail queue, per direction. Runs until SIGINT or
// SIGTERM; SIGUSR1 turns a blackhole on (every packet dropped), SIGUSR2 off. Prints each
// direction's counts, and writes them as JSON with --json.
#pragma once

#include <string>

#include "CLI/CLI.hpp"
#include "core/link/link_plan.h"

namespace uringload::cli {

struct LinkCommandOptions {
  core::LinkOptions link;
  std::string json_path;
  bool quiet = false;
};

CLI::App* AddLinkCommand(CLI::App& app, LinkCommandOptions& options);
int LinkCommand(const LinkCommandOptions& options);

}  // namespace uringload::cli
