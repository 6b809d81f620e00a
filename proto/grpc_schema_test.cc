#include "proto/grpc_schema.h"

#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "proto/testing/decode_to_json.h"

namespace uringload::proto {
namespace {

// A folder holding shop.proto, which imports common/money.proto from an import path.
class GrpcSchemaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char folder[] = "/tmp/uringload-grpc-schema-XXXXXX";
    folder_ = mkdtemp(folder);
    std::filesystem::create_directories(folder_ + "/include/common");
    std::ofstream(folder_ + "/include/common/money.proto") << R"(syntax = "proto3";
package common;
message Money { string currency = 1; int64 cents = 2; }
)";
    std::ofstream(folder_ + "/shop.proto") << R"(syntax = "proto3";
package shop;
import "common/money.proto";
message GetRequest { string user = 1; int32 count = 2; }
message Cart { repeated string items = 1; common.Money total = 2; }
service Carts {
  rpc Get(GetRequest) returns (Cart);
  rpc Watch(GetRequest) returns (stream Cart);
  rpc Fill(stream GetRequest) returns (Cart);
  rpc Chat(stream GetRequest) returns (stream Cart);
}
)";
  }
  void TearDown() override { std::filesystem::remove_all(folder_); }

  absl::StatusOr<GrpcSchema> Shop() {
    std::vector<std::string> imports = {folder_ + "/include"};
    return GrpcSchema::FromProtoFile(folder_ + "/shop.proto", imports);
  }

  std::string folder_;
};

TEST_F(GrpcSchemaTest, MethodsAreFoundByEitherSpellingWithTheirStreamingSides) {
  absl::StatusOr<GrpcSchema> schema = Shop();
  ASSERT_TRUE(schema.ok()) << schema.status();
  absl::StatusOr<GrpcMethod> get = schema->FindMethod("shop.Carts/Get");
  ASSERT_TRUE(get.ok()) << get.status();
  EXPECT_EQ(get->path, "/shop.Carts/Get");
  EXPECT_EQ(get->request_type, "shop.GetRequest");
  EXPECT_EQ(get->response_type, "shop.Cart");
  EXPECT_FALSE(get->client_streaming || get->server_streaming);
  absl::StatusOr<GrpcMethod> watch = schema->FindMethod("shop.Carts.Watch");
  ASSERT_TRUE(watch.ok()) << watch.status();
  EXPECT_TRUE(watch->server_streaming && !watch->client_streaming);
  EXPECT_TRUE(schema->FindMethod("shop.Carts/Fill")->client_streaming);
  absl::StatusOr<GrpcMethod> chat = schema->FindMethod("shop.Carts/Chat");
  EXPECT_TRUE(chat->client_streaming && chat->server_streaming);
}

TEST_F(GrpcSchemaTest, AMethodOrServiceNotInTheSchemaIsNamed) {
  absl::StatusOr<GrpcSchema> schema = Shop();
  ASSERT_TRUE(schema.ok()) << schema.status();
  EXPECT_EQ(schema->FindMethod("shop.Carts/Put").status().message(),
            "--grpc shop.Carts/Put: shop.Carts has no method Put (it has Get, Watch, Fill, Chat)");
  EXPECT_EQ(schema->FindMethod("shop.Basket/Get").status().message(),
            "--grpc shop.Basket/Get: no service shop.Basket in the schema");
  EXPECT_FALSE(schema->FindMethod("Get").ok());
}

// JSON to the wire format and back; nested messages from the imported file too.
TEST_F(GrpcSchemaTest, JsonBecomesTheWireFormat) {
  absl::StatusOr<GrpcSchema> schema = Shop();
  ASSERT_TRUE(schema.ok()) << schema.status();
  absl::StatusOr<std::string> wire = schema->EncodeJson("shop.GetRequest", R"({"user":"u1"})");
  ASSERT_TRUE(wire.ok()) << wire.status();
  EXPECT_EQ(*wire, std::string("\x0a\x02u1", 4));  // Field 1, length-delimited, "u1".
  absl::StatusOr<std::string> cart = schema->EncodeJson(
      "shop.Cart", R"({"items":["a","b"],"total":{"currency":"EUR","cents":"1250"}})");
  ASSERT_TRUE(cart.ok()) << cart.status();
  absl::StatusOr<std::string> back = testing::DecodeToJson(*schema, "shop.Cart", *cart);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, R"({"items":["a","b"],"total":{"currency":"EUR","cents":"1250"}})");
  // Every field at its default: an empty message, zero bytes.
  EXPECT_EQ(*schema->EncodeJson("shop.GetRequest", "{}"), "");
}

TEST_F(GrpcSchemaTest, JsonThatDoesNotMatchTheMessageNamesTheFieldAndItsLine) {
  absl::StatusOr<GrpcSchema> schema = Shop();
  ASSERT_TRUE(schema.ok()) << schema.status();
  absl::StatusOr<std::string> typo =
      schema->EncodeJson("shop.GetRequest", "{\n  \"user\": \"u1\",\n  \"usr\": \"u2\"\n}");
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.status().message().find("line 3"), std::string::npos) << typo.status();
  EXPECT_NE(typo.status().message().find("usr"), std::string::npos) << typo.status();
  absl::StatusOr<std::string> wrong_type =
      schema->EncodeJson("shop.GetRequest", "{\"user\": \"u1\",\n\"count\": \"many\"}");
  ASSERT_FALSE(wrong_type.ok());
  EXPECT_NE(wrong_type.status().message().find("line 2"), std::string::npos) << wrong_type.status();
  EXPECT_FALSE(schema->EncodeJson("shop.Nothing", "{}").ok());
}

TEST_F(GrpcSchemaTest, AProtoThatDoesNotParseGivesTheParsersFileAndLine) {
  std::ofstream(folder_ + "/broken.proto")
      << "syntax = \"proto3\";\nmessage A {\n  string a = 1\n}\n";
  std::vector<std::string> none;
  absl::StatusOr<GrpcSchema> schema = GrpcSchema::FromProtoFile(folder_ + "/broken.proto", none);
  ASSERT_FALSE(schema.ok());
  EXPECT_NE(schema.status().message().find("broken.proto:4:"), std::string::npos)
      << schema.status();
  EXPECT_FALSE(GrpcSchema::FromProtoFile(folder_ + "/missing.proto", none).ok());
  // The import is not found without its import path.
  EXPECT_FALSE(GrpcSchema::FromProtoFile(folder_ + "/shop.proto", none).ok());
}

TEST_F(GrpcSchemaTest, AProtosetServesAsTheProtoFileDoes) {
  google::protobuf::FileDescriptorSet set;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"(
    file { name: "echo.proto" package: "t" syntax: "proto3"
      message_type { name: "Ping"
        field { name: "n" number: 1 type: TYPE_INT32 label: LABEL_OPTIONAL json_name: "n" } }
      service { name: "Echo"
        method { name: "Call" input_type: ".t.Ping" output_type: ".t.Ping" } } })",
                                                            &set));
  std::string path = folder_ + "/echo.protoset";
  std::ofstream(path, std::ios::binary) << set.SerializeAsString();
  absl::StatusOr<GrpcSchema> schema = GrpcSchema::FromProtoset(path);
  ASSERT_TRUE(schema.ok()) << schema.status();
  absl::StatusOr<GrpcMethod> call = schema->FindMethod("t.Echo/Call");
  ASSERT_TRUE(call.ok()) << call.status();
  EXPECT_EQ(*schema->EncodeJson(call->request_type, R"({"n":5})"), std::string("\x08\x05", 2));
  std::ofstream(folder_ + "/junk.protoset") << "not a descriptor set";
  EXPECT_FALSE(GrpcSchema::FromProtoset(folder_ + "/junk.protoset").ok());
}

}  // namespace
}  // namespace uringload::proto
