#include "tests/support/tls_certs.h"

#include <stdlib.h>

#include <filesystem>

#include "tests/support/process.h"

namespace uringload::testing {

SelfSignedCert::SelfSignedCert(const std::string& names) {
  char dir_template[] = "/tmp/uringload-cert-XXXXXX";
  dir_ = mkdtemp(dir_template);
  cert_ = dir_ + "/cert.pem";
  key_ = dir_ + "/key.pem";
  ProcessResult r =
      RunProcess({"openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                  "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key_, "-out", cert_, "-days",
                  "2", "-subj", "/CN=uringload test", "-addext", "subjectAltName=" + names});
  ok_ = r.exit_code == 0;
}

SelfSignedCert::~SelfSignedCert() {
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

const SelfSignedCert& SharedCert() {
  // An object, not a pointer that is never deleted: its destructor removes the folder at exit
  // (a leaked one left a folder in /tmp per test process, about 160 a CI run).
  static const SelfSignedCert cert;
  return cert;
}

}  // namespace uringload::testing
