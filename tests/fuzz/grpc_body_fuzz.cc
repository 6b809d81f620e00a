// Fuzzes gRPC body templates against libprotobuf as the oracle: the input's bytes choose one of
// a few random schemas and then every choice of a JSON body with placeholders and of the
// requests it is rendered for (proto/testing/protobuf_oracle.h). Invariant: what uringload
// sends equals what libprotobuf encodes from the same JSON with the values written in; a
// difference aborts with both sides printed. No crash, no UB, no leak.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <vector>

#include "proto/testing/protobuf_oracle.h"
#include "proto/testing/schema_from_text.h"

namespace {

namespace testing = uringload::proto::testing;

// Choices drawn from the fuzzer's bytes (zeros once they run out).
class FuzzedChoices : public testing::Choices {
 public:
  explicit FuzzedChoices(FuzzedDataProvider& data) : data_(data) {}
  uint32_t Below(uint32_t n) override { return data_.ConsumeIntegralInRange<uint32_t>(0, n - 1); }

 private:
  FuzzedDataProvider& data_;
};

constexpr int kSchemas = 16;

struct Schema {
  uringload::proto::GrpcSchema schema;
  std::unique_ptr<testing::ProtobufOracle> oracle;
};

// Parsing a schema takes a file: a few are made once, from fixed seeds.
std::vector<Schema>& Schemas() {
  static std::vector<Schema>* schemas = [] {
    auto* made = new std::vector<Schema>();
    made->reserve(kSchemas);
    for (uint64_t seed = 1; seed <= kSchemas; ++seed) {
      testing::SeededChoices choices(seed);
      absl::StatusOr<uringload::proto::GrpcSchema> schema =
          testing::SchemaFromText(testing::RandomProto(choices));
      if (!schema.ok()) abort();
      made->push_back({*std::move(schema), nullptr});
      made->back().oracle = std::make_unique<testing::ProtobufOracle>(made->back().schema, "o.M0");
    }
    return made;
  }();
  return *schemas;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider provider(data, size);
  FuzzedChoices choices(provider);
  Schema& schema = Schemas()[choices.Below(kSchemas)];
  testing::OracleBody body;
  std::vector<testing::OracleBody::Request> requests;
  testing::RandomCase(choices, schema.oracle->descriptor(), body, requests);
  std::string difference = schema.oracle->Check(body, requests);
  if (!difference.empty()) {
    fprintf(stderr, "%s\n", difference.c_str());
    abort();
  }
  return 0;
}
