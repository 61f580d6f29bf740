#pragma once
// The images a check before sending refused, by URL, with the reason: what makes the rows that
// use them invalid (RecipientStream applies it). Pure; filled by runner::check_media.

#include <cstddef>
#include <string>
#include <unordered_map>

namespace campaign {

class MediaVerdicts {
public:
    // Records that the image at `url` fails the check, for `reason` (printable, for people).
    void refuse(std::string url, std::string reason) { m_refused.insert_or_assign(std::move(url), std::move(reason)); }
    // Why the image at `url` fails the check; null when it passed or was not checked.
    const std::string* refusal(const std::string& url) const {
        auto it = m_refused.find(url);
        return it == m_refused.end() ? nullptr : &it->second;
    }
    // How many images were refused.
    std::size_t refused() const { return m_refused.size(); }

private:
    std::unordered_map<std::string, std::string> m_refused;
};

}  // namespace campaign
