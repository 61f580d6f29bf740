#include "runner/secrets.hpp"

namespace runner {

std::vector<std::string> campaign_secrets(const campaign::Campaign& c) {
    std::vector<std::string> out{c.service.api_key, c.service.access_token, c.account.ledger_password};
    for (const auto& [name, value] : c.service.headers) {
        out.push_back(value);
    }
    if (c.account.rate_store) {
        out.push_back(c.account.rate_store->password);
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

void mask_record(results::ResultRecord& r, const util::Redactor& secrets) {
    if (secrets.empty()) {
        return;
    }
    const auto mask = [&secrets](std::string& text) { secrets.mask(text); };
    mask(r.user_name);
    mask(r.error);
    if (r.message_id) {
        mask(*r.message_id);
    }
    if (r.message) {
        mask(r.message->text);
        mask(r.message->source);
        mask(r.message->params);
        for (std::string* part : {&r.message->preview.header, &r.message->preview.body, &r.message->preview.footer}) {
            mask(*part);
        }
        for (auto& button : r.message->preview.buttons) {
            mask(button);
        }
        if (r.message->label) {
            mask(*r.message->label);
        }
    }
}

}  // namespace runner
