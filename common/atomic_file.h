// Replacing a small file (a configuration file, the functions file) so that a crash or a power
// cut at any moment leaves either the old contents or the new ones, whole.
//
// Thread-safety: distinct paths may be replaced concurrently; one path by one caller at a time.
#pragma once

#include <string>
#include <string_view>

namespace ebb {

// Writes `contents` to a fresh temporary file beside the target ("<target>.tmp-<random hex>",
// created 0600 with O_EXCL|O_NOFOLLOW: no one reads a secret while it is written, and a file or
// symbolic link planted under a temporary name is never written through), fsyncs it, gives it
// the mode the target had (a new file keeps 0600), renames it over the target and fsyncs the
// directory. When `path` is a symbolic link, the file it points to is replaced and the link
// stays.
// Returns "" on success, else what failed, e.g. "can't rename '/a/b.tmp-<hex>' to '/a/b': ...";
// the target is then unchanged and the temporary file removed.
std::string ReplaceFileAtomically(const std::string& path, std::string_view contents);

}  // namespace ebb
