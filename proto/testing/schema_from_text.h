// SchemaFromText: a gRPC schema from a .proto's text, for tests: the text is written to a
// temporary folder, parsed there, and the folder removed.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "proto/grpc_schema.h"

namespace uringload::proto::testing {

inline absl::StatusOr<GrpcSchema> SchemaFromText(std::string_view proto) {
  char folder[] = "/tmp/uringload-schema-XXXXXX";
  std::string path = std::string(mkdtemp(folder)) + "/t.proto";
  std::ofstream(path) << proto;
  absl::StatusOr<GrpcSchema> schema = GrpcSchema::FromProtoFile(path, {});
  std::filesystem::remove_all(folder);
  return schema;
}

}  // namespace uringload::proto::testing
