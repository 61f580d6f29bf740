// libFuzzer harness: util::JsonScanner against nlohmann::json on the same bytes. Both must
// refuse the same texts and read the same values from the rest (json_mirror::compare); the
// scanner reads every result-log line, nlohmann is the reference.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "json_scan_mirror.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    if (const std::string difference = json_mirror::compare(text); !difference.empty()) {
        std::fprintf(stderr, "json_scan: %s\n", difference.c_str());
        std::abort();
    }
    return 0;
}
