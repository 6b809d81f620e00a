// Fuzzes the flows' field paths over gRPC answers: any bytes as an answer's message, read
// through paths of every scalar type, nested, repeated (packed or not) and indexed. Invariants:
// a read is -1 (absent or unparsable), a size that fits the buffer, or the buffer's size + 1;
// what it wrote stays in the buffer; no crash, no UB, no leak. The same bytes parsed by
// libprotobuf that hold a string field: the path reads exactly that string.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/message.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "proto/protobuf_field_path.h"
#include "proto/testing/schema_from_text.h"

namespace {

using uringload::proto::GrpcSchema;
using uringload::proto::ProtobufFieldPath;

constexpr char kProto[] = R"(syntax = "proto3";
package t;
enum Color { NONE = 0; RED = 1; }
message Owner { string name = 1; sint32 age = 2; repeated fixed64 ids = 3; }
message Reply {
  string token = 1; repeated string items = 2; Owner owner = 3; repeated Owner others = 4;
  int32 delta = 5; sint64 offset = 6; bool ready = 7; Color color = 8; bytes blob = 9;
  repeated int32 scores = 10; double ratio = 11; uint64 big = 12; repeated fixed32 marks = 14;
  float share = 16; sfixed64 when = 17; repeated uint32 counts = 18;
}
)";

struct Setup {
  std::unique_ptr<GrpcSchema> schema;
  std::vector<ProtobufFieldPath> paths;
  std::unique_ptr<google::protobuf::DynamicMessageFactory> factory;
  const google::protobuf::Descriptor* reply = nullptr;
};

const Setup& Paths() {
  static Setup* setup = [] {
    auto* s = new Setup;
    absl::StatusOr<GrpcSchema> schema = uringload::proto::testing::SchemaFromText(kProto);
    if (!schema.ok()) abort();
    s->schema = std::make_unique<GrpcSchema>(*std::move(schema));
    for (const char* pointer :
         {"/token", "/items/1", "/owner/name", "/owner/age", "/owner/ids/2", "/others/1/name",
          "/delta", "/offset", "/ready", "/color", "/blob", "/scores/3", "/ratio", "/big",
          "/marks/0", "/share", "/when", "/counts/5"}) {
      absl::StatusOr<ProtobufFieldPath> path =
          ProtobufFieldPath::Compile(*s->schema, "t.Reply", pointer);
      if (!path.ok()) abort();
      s->paths.push_back(*std::move(path));
    }
    s->reply = s->schema->MessageType("t.Reply");
    s->factory =
        std::make_unique<google::protobuf::DynamicMessageFactory>(s->reply->file()->pool());
    return s;
  }();
  return *setup;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Setup& setup = Paths();
  std::string_view message(reinterpret_cast<const char*>(data), size);
  for (size_t room : {size_t{0}, size_t{3}, size_t{64}}) {
    std::vector<char> buffer(room + 8, '\x5a');
    for (const ProtobufFieldPath& path : setup.paths) {
      int64_t n = path.Read(message, std::span<char>(buffer.data(), room));
      if (n < -1 || n > static_cast<int64_t>(room) + 1) abort();
      for (size_t k = room; k < buffer.size(); ++k) {
        if (buffer[k] != '\x5a') abort();  // Wrote past its buffer.
      }
    }
  }
  // Where libprotobuf reads the message and its token is set, the path reads that token.
  std::unique_ptr<google::protobuf::Message> reply(setup.factory->GetPrototype(setup.reply)->New());
  if (reply->ParseFromArray(data, static_cast<int>(size))) {
    const google::protobuf::FieldDescriptor* token = setup.reply->FindFieldByName("token");
    std::string want = reply->GetReflection()->GetString(*reply, token);
    std::vector<char> buffer(size + 1);
    int64_t n = setup.paths[0].Read(message, std::span<char>(buffer.data(), buffer.size()));
    if (!want.empty() && std::string_view(buffer.data(), n < 0 ? 0 : n) != want) abort();
  }
  return 0;
}
