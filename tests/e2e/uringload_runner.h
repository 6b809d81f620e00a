// Runs the built `uringload` binary for end-to-end tests and reads back its JSON result.
#pragma once

#include <unistd.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/support/flat_json.h"
#include "tests/support/process.h"

namespace uringload::testing {

struct RunOutput {
  ProcessResult process;
  FlatJson json;  // Empty when the run wrote none.
};

// `uringload run <args> --json <tmp> --quiet`, with the JSON parsed.
inline RunOutput RunUringload(std::vector<std::string> args, int timeout_seconds = 120) {
  char path[] = "/tmp/uringload-result-XXXXXX";
  close(mkstemp(path));
  std::vector<std::string> argv = {URINGLOAD_BINARY, "run"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"--json", path, "--quiet"});
  RunOutput out;
  out.process = RunProcess(argv, timeout_seconds);
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  unlink(path);
  if (!text.empty()) {
    absl::StatusOr<FlatJson> json = FlattenJson(text);
    if (json.ok()) out.json = *json;
  }
  return out;
}

}  // namespace uringload::testing
