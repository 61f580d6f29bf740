#pragma once
// Shared by the runner tests: a campaign folder with a small CSV, the log read back as JSON
// objects, and answers of the fake service.

#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "campaign_file_fixture.hpp"
#include "fakes.hpp"

namespace runner_test {

// A campaign of three numbers, each with a user id; `extra` is appended to the YAML.
inline campaign::Campaign three_recipients(const campaign_file_test::Folder& folder, const std::string& extra = "") {
    folder.put("samples/r.csv",
               "phone,name,user_id\n"
               "+919812345678,Asha,u-1\n"
               "+919812345679,Vikram,u-2\n"
               "+919812345680,Meera,u-3\n");
    auto c = folder.load(R"(name: spring
service:
  base_url: https://api.example.com
  api_key: ${WACAMP_API_KEY}
  access_token: ${WACAMP_ACCESS_TOKEN}
recipients:
  file: samples/r.csv
  columns: {wa_id: phone, user_name: name, user_id: user_id}
message:
  type: text
  text: "Hi {{name}}"
)" + extra);
    REQUIRE(c);
    return std::move(*c);
}

// Each line of the log at `path` as a JSON object.
inline std::vector<nlohmann::json> read_log(const std::string& path) {
    std::vector<nlohmann::json> lines;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
        lines.push_back(nlohmann::json::parse(line));
    }
    return lines;
}

// The values of `key` in the lines of `log`, in order ("" where a line lacks it).
inline std::vector<std::string> column(const std::vector<nlohmann::json>& log, const std::string& key) {
    std::vector<std::string> values;
    for (const auto& line : log) {
        values.push_back(line.contains(key) ? line[key].dump() : "");
    }
    return values;
}

// The service accepting every request.
inline fakes::FakeTransport::Answer accept_all(const service::HttpRequest& /*request*/) {
    return fakes::http_answer(200, R"({"success":true,"message":"ok","data":{"messageId":"wamid.A1"}})");
}

}  // namespace runner_test
