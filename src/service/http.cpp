#include "service/http.hpp"

#include <strings.h>

namespace service {

Completion perform(HttpTransport& transport, HttpRequest request) {
    constexpr std::uint64_t k_id = 1;
    transport.start(k_id, std::move(request));
    for (;;) {
        for (auto& completion : transport.poll(std::chrono::milliseconds(1000))) {
            if (completion.id == k_id) {
                return std::move(completion);
            }
        }
    }
}

std::string_view method_name(Method method) {
    switch (method) {
    case Method::get: return "GET";
    case Method::post: return "POST";
    case Method::put: return "PUT";
    case Method::head: return "HEAD";
    }
    return "GET";
}

std::string find_header(const Headers& headers, std::string_view name) {
    for (const auto& [key, value] : headers) {
        if (key.size() == name.size() && strncasecmp(key.data(), name.data(), name.size()) == 0) {
            return value;
        }
    }
    return {};
}

}  // namespace service
