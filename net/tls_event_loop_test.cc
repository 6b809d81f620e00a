// TlsEventLoop over fake loops, client against server in memory: real handshakes and records,
// every completion checked, no sockets.
#include "net/tls_event_loop.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "net/testing/tls_loopback.h"
#include "net/tls_errors.h"

namespace uringload::net {
namespace {

std::shared_ptr<TlsContext> Insecure() { return *TlsContext::Client({.verify = false}); }

// Connected and a request answered, both sides over TLS.
void Exchange(TlsLoopback& link) {
  link.Start();
  link.Pump();
  ASSERT_TRUE(link.client_seen.Saw(Op::kConnect, 0));
  ASSERT_TRUE(link.server_seen.Saw(Op::kAccept, 0));
  link.client->Send(0, "GET / HTTP/1.1\r\n\r\n", 18);
  link.Pump();
  EXPECT_EQ(link.server_seen.received, "GET / HTTP/1.1\r\n\r\n");
  EXPECT_TRUE(link.client_seen.Saw(Op::kSend, 18));  // Plaintext bytes, once all went out.
  link.server->Send(0, "HTTP/1.1 200 OK\r\n\r\n", 19);
  link.Pump();
  EXPECT_EQ(link.client_seen.received, "HTTP/1.1 200 OK\r\n\r\n");
}

TEST(TlsEventLoopTest, HandshakeThenPlaintextBothWays) {
  TlsLoopback link(Insecure(), SelfSignedServerContext());
  Exchange(link);
}

// The records of one receive reach the handler together: one completion, not one per record.
TEST(TlsEventLoopTest, TheRecordsOfOneReceiveAreHandedOverTogether) {
  TlsLoopback link(Insecure(), SelfSignedServerContext());
  Exchange(link);
  size_t before = link.client_seen.seen.size();
  for (std::string_view part : {"one ", "two ", "three"}) {
    link.server->Send(0, part.data(), static_cast<uint32_t>(part.size()));
    link.server->Drain(link.server_seen);  // Sent; the record waits for the client's receive.
  }
  link.Pump(1);
  std::vector<int> receives;
  for (size_t i = before; i < link.client_seen.seen.size(); ++i) {
    if (link.client_seen.seen[i].op == Op::kRecv) receives.push_back(link.client_seen.seen[i].res);
  }
  EXPECT_EQ(receives, std::vector<int>{13});
  EXPECT_TRUE(link.client_seen.received.ends_with("HTTP/1.1 200 OK\r\n\r\none two three"));
}

TEST(TlsEventLoopTest, CloseSendsCloseNotifyTheOtherSideSeesACleanEnd) {
  TlsLoopback link(Insecure(), SelfSignedServerContext());
  Exchange(link);
  link.server->Close(0);
  link.Pump();
  EXPECT_TRUE(link.client_seen.Saw(Op::kRecv, 0));
  EXPECT_FALSE(link.client_seen.Saw(Op::kRecv, -kTlsNoCloseNotify));
  // The client answers with its own close_notify before it closes.
  link.client->Close(0);
  link.Pump();
  EXPECT_TRUE(link.client_closed());
  EXPECT_TRUE(link.client_seen.Saw(Op::kClose, 0));
}

TEST(TlsEventLoopTest, AnEndWithoutCloseNotifyIsItsOwnCause) {
  TlsLoopback link(Insecure(), SelfSignedServerContext());
  Exchange(link);
  link.ServerEof();
  EXPECT_TRUE(link.client_seen.Saw(Op::kRecv, -kTlsNoCloseNotify));
}

TEST(TlsEventLoopTest, AForgedRecordIsARecordError) {
  TlsLoopback link(Insecure(), SelfSignedServerContext());
  Exchange(link);
  link.InjectToClient(std::string("\x17\x03\x03\x00\x20", 5) + std::string(32, 'x'));
  EXPECT_TRUE(link.client_seen.Saw(Op::kRecv, -kTlsRecordError));
}

TEST(TlsEventLoopTest, AnUntrustedCertificateFailsTheConnectWithTheVerifyReason) {
  TlsLoopback link(*TlsContext::Client({}), SelfSignedServerContext());
  link.Start();
  link.Pump();
  EXPECT_TRUE(link.client_seen.Saw(Op::kConnect, -(kTlsVerifyBase + 18)))  // Self-signed.
      << TlsCauseText(-link.client_seen.seen.back().res);
  EXPECT_EQ(TlsCauseText(kTlsVerifyBase + 18),
            "certificate verify failed: self-signed certificate");
  EXPECT_FALSE(link.server_seen.Saw(Op::kAccept, 0));  // The server's worker never hears of it.
}

TEST(TlsEventLoopTest, LoopsOfSeveralWorkersShareOneContext) {
  std::shared_ptr<TlsContext> client = Insecure();
  std::shared_ptr<TlsContext> server = SelfSignedServerContext();
  TlsLoopback first(client, server);
  Exchange(first);
  // A ticket for the first client's loop only; a second loop (another worker) has none.
  TlsLoopback second(client, server);
  second.Start();
  second.Pump();
  EXPECT_TRUE(second.client_seen.Saw(Op::kConnect, 0));
}

}  // namespace
}  // namespace uringload::net
