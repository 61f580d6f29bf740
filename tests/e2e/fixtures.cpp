#include "fixtures.hpp"

#include <fmt/format.h>

namespace e2e {

std::string numbers_wa_id(int i) {
    return std::to_string(919812300000LL + i);
}

std::string numbers_csv(int count, int first) {
    std::string csv = "phone,name,user_id\n";
    for (int i = first; i < first + count; ++i) {
        csv += fmt::format("+{},Person {},u-{}\n", numbers_wa_id(i), i, i);
    }
    return csv;
}

CampaignFixture::CampaignFixture(const Sandbox& sandbox, const std::string& csv_text, const std::string& extra_yaml,
                                 const std::string& message_yaml) {
    csv = dir.write("recipients.csv", csv_text);
    log = dir.path() / "results" / "e2e.jsonl";
    std::string yaml = "name: e2e\n"
                       "service:\n"
                       "  base_url: ${WACAMP_BASE_URL}\n"
                       "  api_key: ${WACAMP_API_KEY}\n"
                       "  access_token: ${WACAMP_ACCESS_TOKEN}\n"
                       "  timeout: 5s\n"
                       "recipients:\n"
                       "  file: recipients.csv\n"
                       "  columns: {wa_id: phone, user_name: name, user_id: user_id}\n"
                       "  default_country: IN\n" +
                       message_yaml + "results: results/e2e.jsonl\n" + extra_yaml;
    campaign = dir.write("campaign.yaml", yaml);
    env = {{"WACAMP_BASE_URL", sandbox.url()},
           {"WACAMP_API_KEY", k_api_key},
           {"WACAMP_ACCESS_TOKEN", k_access_token}};
}

ProcessResult CampaignFixture::wacamp(const std::vector<std::string>& args) const {
    return run_wacamp(args, env);
}

std::map<long long, std::string> CampaignFixture::final_status() const {
    std::map<long long, std::string> out;
    for (const auto& r : records()) {
        if (r.value("event", "") == "result") {
            out[r["row"].get<long long>()] = r["status"].get<std::string>();
        } else if (r.value("event", "") == "attempt") {
            out[r["row"].get<long long>()] = "unknown";  // until a result follows
        }
    }
    return out;
}

std::map<std::string, int> delivered(const Sandbox& sandbox) {
    std::map<std::string, int> out;
    for (const auto& j : sandbox.journal()) {
        if (j.value("path", "") == "/whatsapp-automation/wa/send-message" && j.value("outcome", "") == "ok") {
            ++out[j.value("wa_id", "")];
        }
    }
    return out;
}

bool leaks(const std::string& secret, const std::vector<std::string>& texts) {
    for (const auto& t : texts) {
        if (t.find(secret) != std::string::npos) {
            return true;
        }
    }
    return false;
}

} // namespace e2e
