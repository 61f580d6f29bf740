#include "runner/secrets.hpp"

namespace runner {

std::vector<std::string> campaign_secrets(const campaign::Campaign& c) {
    std::vector<std::string> out{c.service.api_key, c.service.access_token};
    for (const auto& [name, value] : c.service.headers) {
        out.push_back(value);
    }
    return out;
}

util::Redactor redactor_for(const campaign::Campaign& c) {
    util::Redactor redactor;
    for (auto& secret : campaign_secrets(c)) {
        redactor.add(std::move(secret));
    }
    return redactor;
}

}  // namespace runner
