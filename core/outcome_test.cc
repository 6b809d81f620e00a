#include "core/outcome.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace uringload::core {
namespace {

// A QUIC CRYPTO_ERROR is a TLS alert: the cause names it by name and number, and says when no
// SNI went (a server that needs one refuses a client that names it by address).
TEST(OutcomeTest, ACryptoErrorNamesItsTlsAlert) {
  EXPECT_EQ(QuicCauseText(QuicCloseCause(0x100 + 112, false, /*sni_sent=*/false)),
            "QUIC connection closed by the server: CRYPTO_ERROR, TLS alert unrecognized_name "
            "(112); no SNI was sent, the host being an IP address");
  EXPECT_EQ(QuicCauseText(QuicCloseCause(0x100 + 40, false, /*sni_sent=*/true)),
            "QUIC connection closed by the server: CRYPTO_ERROR, TLS alert handshake_failure (40)");
  EXPECT_EQ(QuicCauseText(QuicCloseCause(0x100 + 120, false, true)),
            "QUIC connection closed by the server: CRYPTO_ERROR, TLS alert "
            "no_application_protocol (120)");
  EXPECT_EQ(QuicCauseText(QuicCloseCause(0x1fe, false, true)),
            "QUIC connection closed by the server: CRYPTO_ERROR, TLS alert an unregistered alert");
  // An application's code and QUIC's own are what they were.
  EXPECT_EQ(QuicCauseText(QuicCloseCause(0x10b, true, false)),
            "QUIC connection closed by the server: H3_REQUEST_REJECTED");
  EXPECT_EQ(QuicCauseText(QuicCloseCause(0x2, false, false)),
            "QUIC connection closed by the server: CONNECTION_REFUSED");
}

// The JSON names a cause by its text and a merge reads it back by it: no two are alike.
TEST(OutcomeTest, EveryQuicCauseHasATextOfItsOwn) {
  std::set<std::string> texts;
  for (int cause = kHttp3ResetBase; cause < kCauseEnd; ++cause) {
    EXPECT_TRUE(texts.insert(QuicCauseText(cause)).second) << cause << " " << QuicCauseText(cause);
  }
}

}  // namespace
}  // namespace uringload::core
