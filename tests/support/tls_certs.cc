#include "tests/support/tls_certs.h"

#include <unistd.h>

namespace uringload::testing {

SelfSignedCert::SelfSignedCert(const std::string& names)
    : pem_(std::make_unique<net::SelfSignedPem>(names.c_str())) {
  ok_ = access(pem_->cert_file().c_str(), R_OK) == 0 && access(pem_->key_file().c_str(), R_OK) == 0;
}

SelfSignedCert::~SelfSignedCert() = default;

const SelfSignedCert& SharedCert() {
  // An object, not a pointer that is never deleted: its destructor removes the folder at exit
  // (a leaked one left a folder in /tmp per test process, about 160 a CI run).
  static const SelfSignedCert cert;
  return cert;
}

}  // namespace uringload::testing
