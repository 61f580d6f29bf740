#include <doctest/doctest.h>

#include <string>

#include "results/records.hpp"
#include "runner/secrets.hpp"

namespace {

// A key a CSV row may hold in any column, with the characters JSON escapes: its params array
// (raw JSON) carries it escaped, the preview and the other fields as it is.
const std::string k_key = "sk_live\"7Hq\\9zX";
const std::string k_key_in_json = "sk_live\\\"7Hq\\\\9zX";

results::ResultRecord template_record() {
    results::ResultRecord r;
    r.row = 3;
    r.wa_id = "14155550123";
    r.user_name = "Ann " + k_key;
    r.status = results::Status::dry_run;
    r.template_name = "spring_sale";
    results::MessageContent m;
    m.params = R"([{"type":"header","parameters":[{"type":"image","image":{"link":"https://cdn.example.com/)" +
               k_key_in_json + R"(.jpg"}}]},{"type":"body","parameters":[{"type":"text","text":"Ann"},)" +
               R"({"type":"text","text":")" + k_key_in_json + R"("}]}])";
    m.preview.header = "[image] https://cdn.example.com/" + k_key + ".jpg";
    m.preview.body = "Hi Ann, our spring sale is on: " + k_key + " off";
    m.preview.footer = "Reply STOP " + k_key;
    m.preview.buttons = {"Shop " + k_key, "Stop"};
    r.message = m;
    return r;
}

}  // namespace

TEST_CASE("mask_record masks a template message's params array and every part of its preview") {
    util::Redactor secrets;
    secrets.add(k_key);
    auto record = template_record();
    REQUIRE(results::to_line(record).find(k_key_in_json) != std::string::npos);  // the test can fail

    runner::mask_record(record, secrets);

    const std::string line = results::to_line(record);
    CHECK(line.find("sk_live") == std::string::npos);
    CHECK(record.message->params.find("sk_live") == std::string::npos);
    CHECK(record.message->params.find("***") != std::string::npos);
    CHECK(record.message->preview.header == "[image] https://cdn.example.com/***.jpg");
    CHECK(record.message->preview.body == "Hi Ann, our spring sale is on: *** off");
    CHECK(record.message->preview.footer == "Reply STOP ***");
    CHECK(record.message->preview.buttons == std::vector<std::string>{"Shop ***", "Stop"});
    CHECK(record.user_name == "Ann ***");
    CHECK(record.wa_id == "14155550123");  // what a later run matches is kept
}

TEST_CASE("mask_record leaves a template record without a secret as it was") {
    util::Redactor secrets;
    secrets.add("an-unrelated-secret");
    auto record = template_record();
    const auto before = record;
    runner::mask_record(record, secrets);
    CHECK(record == before);
}

TEST_CASE("mask_record masks the template's name and category, the error and the message id from the service") {
    util::Redactor secrets;
    secrets.add(k_key);
    results::ResultRecord record;
    record.row = 1;
    record.wa_id = "14155550123";
    record.status = results::Status::failed;
    record.template_name = "spring_" + k_key;
    record.category = "MARKETING " + k_key;
    record.error = "(#132001) template status " + k_key;
    record.message_id = "wamid." + k_key;
    REQUIRE(results::to_line(record).find(k_key_in_json) != std::string::npos);  // the test can fail

    runner::mask_record(record, secrets);

    CHECK(results::to_line(record).find("sk_live") == std::string::npos);
    CHECK(record.template_name == "spring_***");
    CHECK(record.category == "MARKETING ***");
    CHECK(record.error == "(#132001) template status ***");
    CHECK(record.message_id == "wamid.***");
}
