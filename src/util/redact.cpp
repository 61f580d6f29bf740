#include "util/redact.hpp"

#include <algorithm>

namespace util {

void Redactor::add(std::string secret) {
    if (secret.size() < 4 || std::find(m_secrets.begin(), m_secrets.end(), secret) != m_secrets.end()) {
        return;
    }
    m_secrets.push_back(std::move(secret));
    // Longest first, so a secret that contains another is masked whole.
    std::sort(m_secrets.begin(), m_secrets.end(),
              [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

std::string Redactor::apply(std::string_view text) const {
    std::string out(text);
    for (const auto& secret : m_secrets) {
        size_t pos = 0;
        while ((pos = out.find(secret, pos)) != std::string::npos) {
            out.replace(pos, secret.size(), "***");
            pos += 3;
        }
    }
    return out;
}

} // namespace util
