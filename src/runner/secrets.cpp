#include "runner/secrets.hpp"

namespace runner {

void mask_record(results::ResultRecord& r, const util::Redactor& secrets) {
    if (secrets.empty()) {
        return;
    }
    const auto mask = [&secrets](std::string& text) { secrets.mask(text); };
    mask(r.user_name);
    mask(r.error);
    for (auto* from_service : {&r.message_id, &r.template_name, &r.category}) {
        if (*from_service) {
            mask(**from_service);
        }
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
