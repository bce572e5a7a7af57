#include "common/message_digest.h"

#include <openssl/evp.h>

#include <cstdlib>

namespace ebb {
namespace {

// The algorithm, fetched once: an EVP_MD from EVP_sha256() has no provider and is fetched again
// at every EVP_DigestInit_ex.
const EVP_MD* Fetched(const char* name) {
  EVP_MD* md = EVP_MD_fetch(nullptr, name, nullptr);
  if (md == nullptr) std::abort();  // the default provider always has SHA-1 and SHA-256
  return md;
}

// One context per thread and algorithm, freed with the thread: initialised again for each digest,
// it keeps the provider's state allocated.
class ThreadContext {
 public:
  ThreadContext() : ctx_(EVP_MD_CTX_new()) {
    if (ctx_ == nullptr) std::abort();
  }
  ~ThreadContext() { EVP_MD_CTX_free(ctx_); }
  ThreadContext(const ThreadContext&) = delete;
  ThreadContext& operator=(const ThreadContext&) = delete;

  void Digest(const EVP_MD* md, std::string_view data, unsigned char* out) {
    unsigned int length = 0;
    if (EVP_DigestInit_ex(ctx_, md, nullptr) != 1 ||
        EVP_DigestUpdate(ctx_, data.data(), data.size()) != 1 ||
        EVP_DigestFinal_ex(ctx_, out, &length) != 1) {
      std::abort();  // only an allocation failure inside OpenSSL gets here
    }
  }

 private:
  EVP_MD_CTX* ctx_;
};

}  // namespace

void Sha1(std::string_view data, unsigned char* out) {
  static const EVP_MD* const md = Fetched("SHA1");
  thread_local ThreadContext context;
  context.Digest(md, data, out);
}

void Sha256(std::string_view data, unsigned char* out) {
  static const EVP_MD* const md = Fetched("SHA256");
  thread_local ThreadContext context;
  context.Digest(md, data, out);
}

}  // namespace ebb
