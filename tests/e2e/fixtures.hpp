#pragma once
// A campaign in a temporary folder, pointed at a sandbox: the common setup of end-to-end tests.

#include <map>
#include <set>
#include <string>

#include "harness.hpp"

namespace e2e {

inline const std::string k_api_key = "sandbox-key";
inline const std::string k_access_token = "sandbox-token";

// "phone,name,user_id\n" and `count` valid Indian mobile numbers, wa_ids 919812300000 + i.
std::string numbers_csv(int count, int first = 0);

// The wa_id of row `i` (0-based) of numbers_csv.
std::string numbers_wa_id(int i);

struct CampaignFixture {
    // Writes `csv` and a campaign whose body is the standard one plus `extra_yaml` (top-level
    // keys, which may replace the defaults of `rate:` etc. if `standard` is false).
    CampaignFixture(const Sandbox& sandbox, const std::string& csv, const std::string& extra_yaml = "",
                    const std::string& message_yaml = "message:\n  type: text\n  text: \"Hi {{name}}\"\n");

    TempDir dir;
    std::filesystem::path campaign;
    std::filesystem::path csv;
    std::filesystem::path log;
    EnvOverrides env;

    // Runs `wacamp ARGS…` with the fixture's environment.
    ProcessResult wacamp(const std::vector<std::string>& args) const;
    // The result log's records.
    std::vector<nlohmann::json> records() const { return read_jsonl(log); }
    // Each row's status as the log leaves it: its latest result, or unknown after an attempt.
    std::map<long long, std::string> final_status() const;
};

// How many "ok" send-message answers the sandbox journaled per wa_id.
std::map<std::string, int> delivered(const Sandbox& sandbox);

// Whether `text` appears in any output, log or journal given.
bool leaks(const std::string& secret, const std::vector<std::string>& texts);

} // namespace e2e
