// SelfSignedPem: a fresh self-signed P-256 certificate and its key as PEM files in a folder
// of their own under /tmp, removed with the object. Servers read files (as `serve
// --tls-cert` does), so the TLS and QUIC tests hand them these; a client trusts the
// certificate itself as its CA file.
#pragma once

#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace uringload::net {

class SelfSignedPem {
 public:
  // `subject_alt_name` as openssl writes it: "DNS:localhost", "IP:127.0.0.1".
  explicit SelfSignedPem(const char* subject_alt_name = "DNS:localhost") {
    EVP_PKEY* key = EVP_EC_gen("P-256");
    X509* cert = X509_new();
    X509_set_version(cert, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
    X509_gmtime_adj(X509_getm_notBefore(cert), 0);
    X509_gmtime_adj(X509_getm_notAfter(cert), 86400);
    X509_set_pubkey(cert, key);
    X509_NAME* name = X509_get_subject_name(cert);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>("localhost"), -1, -1, 0);
    X509_set_issuer_name(cert, name);
    X509V3_CTX v3;
    X509V3_set_ctx_nodb(&v3);
    X509V3_set_ctx(&v3, cert, cert, nullptr, nullptr, 0);
    X509_EXTENSION* san = X509V3_EXT_conf_nid(nullptr, &v3, NID_subject_alt_name, subject_alt_name);
    X509_add_ext(cert, san, -1);
    X509_EXTENSION_free(san);
    X509_sign(cert, key, EVP_sha256());
    char dir[] = "/tmp/uringload-tls-XXXXXX";
    folder_ = mkdtemp(dir);
    cert_file_ = folder_ + "/cert.pem";
    key_file_ = folder_ + "/key.pem";
    FILE* f = fopen(cert_file_.c_str(), "w");
    PEM_write_X509(f, cert);
    fclose(f);
    f = fopen(key_file_.c_str(), "w");
    PEM_write_PrivateKey(f, key, nullptr, nullptr, 0, nullptr, nullptr);
    fclose(f);
    X509_free(cert);
    EVP_PKEY_free(key);
  }
  ~SelfSignedPem() {
    remove(cert_file_.c_str());
    remove(key_file_.c_str());
    rmdir(folder_.c_str());
  }
  SelfSignedPem(const SelfSignedPem&) = delete;
  SelfSignedPem& operator=(const SelfSignedPem&) = delete;

  const std::string& cert_file() const { return cert_file_; }
  const std::string& key_file() const { return key_file_; }

 private:
  std::string folder_;
  std::string cert_file_;
  std::string key_file_;
};

}  // namespace uringload::net
