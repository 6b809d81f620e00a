#include "proto/grpc_schema.h"

#include <google/protobuf/compiler/importer.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/descriptor_database.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "net/base/status_macros.h"

namespace uringload::proto {

namespace pb = google::protobuf;

struct GrpcSchema::Pool {
  // From a .proto: the importer owns the pool (and needs the source tree and collector).
  std::unique_ptr<pb::compiler::DiskSourceTree> source_tree;
  std::unique_ptr<pb::compiler::MultiFileErrorCollector> errors;
  std::unique_ptr<pb::compiler::Importer> importer;
  // From a protoset: the pool reads the database.
  std::unique_ptr<pb::SimpleDescriptorDatabase> database;
  std::unique_ptr<pb::DescriptorPool> own_pool;
  const pb::DescriptorPool* pool = nullptr;
  // Prototypes of the dynamic messages; made once, used for every encode.
  std::unique_ptr<pb::DynamicMessageFactory> factory;
};

namespace {

// Keeps the parser's first error ("shop.proto:7:3: Expected \";\".").
class FirstError : public pb::compiler::MultiFileErrorCollector {
 public:
  void AddError(const std::string& filename, int line, int column,
                const std::string& message) override {
    if (first_.empty())
      first_ = absl::StrCat(filename, ":", line + 1, ":", column + 1, ": ", message);
  }
  const std::string& first() const { return first_; }

 private:
  std::string first_;
};

// The 1-based line of `json` holding the quoted `field`, or 0.
int LineOf(std::string_view json, std::string_view field) {
  size_t at = json.find("\"" + std::string(field) + "\"");
  if (field.empty() || at == std::string_view::npos) return 0;
  return 1 + static_cast<int>(std::count(json.begin(), json.begin() + at, '\n'));
}

// An empty message of `type` from the pool's prototypes.
absl::StatusOr<std::unique_ptr<pb::Message>> NewMessage(const pb::DescriptorPool& pool,
                                                        pb::DynamicMessageFactory& factory,
                                                        const std::string& type) {
  const pb::Descriptor* descriptor = pool.FindMessageTypeByName(type);
  if (descriptor == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("no message type ", type, " in the schema"));
  }
  return std::unique_ptr<pb::Message>(factory.GetPrototype(descriptor)->New());
}

}  // namespace

absl::StatusOr<GrpcSchema> GrpcSchema::FromProtoFile(std::string_view proto_file,
                                                     std::span<const std::string> import_paths) {
  std::string file(proto_file);
  std::error_code error;
  if (!std::filesystem::is_regular_file(file, error)) {
    return absl::InvalidArgumentError(absl::StrCat("--proto ", file, ": no such file"));
  }
  auto pool = std::make_shared<Pool>();
  pool->source_tree = std::make_unique<pb::compiler::DiskSourceTree>();
  for (const std::string& path : import_paths) pool->source_tree->MapPath("", path);
  std::string beside = std::filesystem::path(file).parent_path().string();
  pool->source_tree->MapPath("", beside.empty() ? "." : beside);
  // Last, protobuf's well-known types (google/protobuf/timestamp.proto, ...), as protoc finds
  // them: libprotobuf-dev installs them beside its headers.
  pool->source_tree->MapPath("google/protobuf", URINGLOAD_PROTOBUF_INCLUDE "/google/protobuf");
  std::string virtual_file, shadowing;
  if (pool->source_tree->DiskFileToVirtualFile(file, &virtual_file, &shadowing) !=
      pb::compiler::DiskSourceTree::SUCCESS) {
    return absl::InvalidArgumentError(
        absl::StrCat("--proto ", file, ": not under an --import-path (or shadowed by ",
                     shadowing.empty() ? "another file" : shadowing, ")"));
  }
  auto errors = std::make_unique<FirstError>();
  FirstError* first = errors.get();
  pool->errors = std::move(errors);
  pool->importer =
      std::make_unique<pb::compiler::Importer>(pool->source_tree.get(), pool->errors.get());
  if (pool->importer->Import(virtual_file) == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--proto: ", first->first().empty() ? file + " does not parse" : first->first()));
  }
  pool->pool = pool->importer->pool();
  pool->factory = std::make_unique<pb::DynamicMessageFactory>(pool->pool);
  return GrpcSchema(std::move(pool));
}

absl::StatusOr<GrpcSchema> GrpcSchema::FromProtoset(std::string_view protoset_file) {
  const std::string path(protoset_file);  // Debian's absl has a string_view of its own.
  std::ifstream in{path, std::ios::binary};
  std::ostringstream bytes;
  bytes << in.rdbuf();
  pb::FileDescriptorSet set;
  if (!in || !set.ParseFromString(bytes.str()) || set.file_size() == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--protoset ", path, ": not a readable FileDescriptorSet (protoc --descriptor_set_out)"));
  }
  auto pool = std::make_shared<Pool>();
  pool->database = std::make_unique<pb::SimpleDescriptorDatabase>();
  for (const pb::FileDescriptorProto& file : set.file()) {
    if (!pool->database->Add(file)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--protoset ", path, ": ", file.name(), " is in it twice"));
    }
  }
  pool->own_pool = std::make_unique<pb::DescriptorPool>(pool->database.get());
  pool->pool = pool->own_pool.get();
  pool->factory = std::make_unique<pb::DynamicMessageFactory>(pool->pool);
  return GrpcSchema(std::move(pool));
}

absl::StatusOr<GrpcMethod> GrpcSchema::FindMethod(std::string_view method_path) const {
  const std::string name(method_path);
  size_t split = name.find('/');
  if (split == std::string::npos) split = name.rfind('.');
  if (split == std::string::npos || split == 0 || split + 1 == name.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--grpc ", name, ": expected package.Service/Method"));
  }
  std::string service_name = name.substr(0, split);
  std::string method_name = name.substr(split + 1);
  const pb::ServiceDescriptor* service = pool_->pool->FindServiceByName(service_name);
  if (service == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("--grpc ", name, ": no service ", service_name, " in the schema"));
  }
  const pb::MethodDescriptor* method = service->FindMethodByName(method_name);
  if (method == nullptr) {
    std::vector<std::string> methods;
    for (int i = 0; i < service->method_count(); ++i) methods.push_back(service->method(i)->name());
    return absl::InvalidArgumentError(absl::StrCat("--grpc ", name, ": ", service_name,
                                                   " has no method ", method_name, " (it has ",
                                                   absl::StrJoin(methods, ", "), ")"));
  }
  return GrpcMethod{.path = absl::StrCat("/", service->full_name(), "/", method->name()),
                    .request_type = method->input_type()->full_name(),
                    .response_type = method->output_type()->full_name(),
                    .client_streaming = method->client_streaming(),
                    .server_streaming = method->server_streaming()};
}

absl::StatusOr<std::string> GrpcSchema::EncodeJson(std::string_view type_name,
                                                   std::string_view json) const {
  const std::string type(type_name);
  URINGLOAD_ASSIGN_OR_RETURN(std::unique_ptr<pb::Message> made,
                             NewMessage(*pool_->pool, *pool_->factory, type));
  std::unique_ptr<pb::Message> message = std::move(made);
  pb::util::JsonParseOptions options;  // Unknown fields are errors: a typo is not ignored.
  auto status = pb::util::JsonStringToMessage(pb::StringPiece(json.data(), json.size()),
                                              message.get(), options);
  if (!status.ok()) {
    std::string why(status.message().data(), status.message().size());
    // "usr: Cannot find field." and the like name the field first (a path: "total.cents").
    size_t colon = why.find(": ");
    std::string field = colon == std::string::npos ? "" : why.substr(0, colon);
    field.erase(
        std::remove_if(field.begin(), field.end(), [](char c) { return c == '(' || c == ')'; }),
        field.end());  // "(count): invalid value ..." for a value of the wrong type.
    field = field.substr(field.rfind('.') + 1);  // The last name is what the JSON spells.
    int line = LineOf(json, field);
    return absl::InvalidArgumentError(
        absl::StrCat("JSON for ", type, line > 0 ? absl::StrCat(", line ", line) : "", ": ", why));
  }
  std::string wire;
  message->SerializeToString(&wire);
  return wire;
}

const pb::Descriptor* GrpcSchema::MessageType(std::string_view type) const {
  return pool_->pool->FindMessageTypeByName(std::string(type));
}

}  // namespace uringload::proto
