// libFuzzer harness: service::read_body (simdjson first, nlohmann where simdjson refuses) against
// nlohmann alone on the same bytes. Both must read the same facts from every body: the service's
// answers are hostile input, and simdjson only makes the reading faster.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "service/response_body.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view body(reinterpret_cast<const char*>(data), size);
    const auto fast = service::read_body(body);
    const auto slow = service::detail::read_body_nlohmann(body);
    if (fast.is_json != slow.is_json || fast.success_false != slow.success_false ||
        fast.error_code != slow.error_code || fast.error_text != slow.error_text ||
        fast.message_id != slow.message_id || fast.top_id != slow.top_id) {
        std::fprintf(stderr, "response_body: simdjson and nlohmann read the body differently\n");
        std::abort();
    }
    return 0;
}
