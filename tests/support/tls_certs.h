// Self-signed certificates for TLS tests, made by the openssl CLI (Debian's `openssl`) in a
// temporary folder that goes away with the object.
#pragma once

#include <string>

namespace uringload::testing {

class SelfSignedCert {
 public:
  // `names`: the subjectAltName, e.g. "DNS:localhost,IP:127.0.0.1". An EC P-256 key: fast.
  explicit SelfSignedCert(const std::string& names = "DNS:localhost,IP:127.0.0.1");
  ~SelfSignedCert();
  bool ok() const { return ok_; }
  const std::string& cert() const { return cert_; }
  const std::string& key() const { return key_; }

 private:
  std::string dir_;
  std::string cert_;
  std::string key_;
  bool ok_ = false;
};

// One certificate for localhost and 127.0.0.1 shared by a test program's tests, made on first
// use; its folder goes away when the program exits.
const SelfSignedCert& SharedCert();

}  // namespace uringload::testing
