// Self-signed certificates for TLS tests, as PEM files in a temporary folder that goes away
// with the object (net/testing/self_signed_cert.h makes them, for the unit tests too).
#pragma once

#include <memory>
#include <string>

#include "net/testing/self_signed_cert.h"

namespace uringload::testing {

class SelfSignedCert {
 public:
  // `names`: the subjectAltName, e.g. "DNS:localhost,IP:127.0.0.1". An EC P-256 key: fast.
  explicit SelfSignedCert(const std::string& names = "DNS:localhost,IP:127.0.0.1");
  ~SelfSignedCert();
  bool ok() const { return ok_; }
  const std::string& cert() const { return pem_->cert_file(); }
  const std::string& key() const { return pem_->key_file(); }

 private:
  std::unique_ptr<net::SelfSignedPem> pem_;
  bool ok_ = false;
};

// One certificate for localhost and 127.0.0.1 shared by a test program's tests, made on first
// use; its folder goes away when the program exits.
const SelfSignedCert& SharedCert();

}  // namespace uringload::testing
