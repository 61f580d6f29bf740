// The template list read in one pass: the fields wacamp uses, each record as one compact JSON line,
// and the bounds (a body cut at its cap, nesting past 64 levels) refused, saying so.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "service/templates.hpp"

namespace {

// A record in the service's shape, about 600 bytes as a real one is.
std::string record(int i, const std::string& name, const std::string& language = "en",
                   const std::string& status = "APPROVED") {
    return fmt::format(
        R"({{"_id":"65f0a1b2c3d4e5f6a7b8{:04x}","_user":"64b7f0c2a1e4d5f6a7b8c9d0","status":"{}",)"
        R"("updatedAt":"2025-03-01T10:00:00.000Z","whatsAppId":"1234567890{:04}","configuration":{{"name":"{}",)"
        R"("category":"MARKETING","language":"{}","header":"text","textHeader":"Order {{{{1}}}}",)"
        R"("body":"Hi {{{{1}}}}, your order {{{{2}}}} ships on {{{{3}}}}. Reply STOP to opt out of these messages.",)"
        R"("footer":"Sent by Example Shop","mediaHeader":[],"quickReply":[{{"text":"Track"}},{{"text":""}}],)"
        R"("ctaButton":[{{"type":"URL","text":"Open","url":"https://shop.example.com/o/{{{{1}}}}"}}]}},)"
        R"("components":[{{"type":"BODY","example":{{"body_text":[["Asha","A-1001","Monday"]]}}}}]}})",
        i, status, i, name, language);
}

service::HttpResponse list_of(const std::vector<std::string>& records) {
    service::HttpResponse r;
    r.status = 200;
    r.body = R"({"success":true,"data":[)";
    for (size_t i = 0; i < records.size(); ++i) {
        r.body += (i > 0 ? "," : "") + records[i];
    }
    r.body += "]}";
    return r;
}

service::HttpResponse body(std::string text) {
    service::HttpResponse r;
    r.status = 200;
    r.body = std::move(text);
    return r;
}

std::vector<service::TemplateInfo> records_of(const service::HttpResponse& response) {
    std::vector<service::TemplateInfo> out;
    auto read =
        service::read_templates(response, {.record = [&](const service::TemplateInfo& t) { out.push_back(t); }});
    REQUIRE(read.ok());
    return out;
}

std::string why(const service::HttpResponse& response) {
    auto read = service::read_templates(
        response, {.record = [](const service::TemplateInfo&) {}, .json = [](std::string_view) {}});
    return read ? std::string() : read.error().message;
}

// `levels` arrays nested inside a record, so that the body nests `levels` + 3 deep.
std::string nested_record(int levels) {
    return std::string(static_cast<size_t>(levels), '[') + std::string(static_cast<size_t>(levels), ']');
}

}  // namespace

TEST_SUITE("service::read_templates") {
    TEST_CASE("2,000 templates (about 1.2 MB) are read, each with the fields wacamp uses") {
        std::vector<std::string> records;
        for (int i = 0; i < 2000; ++i) {
            records.push_back(record(i, fmt::format("offer_{}", i)));
        }
        const auto response = list_of(records);
        CHECK(response.body.size() > 1'000'000);
        const auto list = records_of(response);
        REQUIRE(list.size() == 2000);
        const auto& t = list[1999];
        CHECK(t.id == "65f0a1b2c3d4e5f6a7b807cf");
        CHECK(t.name == "offer_1999");
        CHECK(t.category == "MARKETING");
        CHECK(t.language == "en");
        CHECK(t.status == "APPROVED");
        CHECK(t.updated_at == "2025-03-01T10:00:00.000Z");
        CHECK(t.header == "text");
        CHECK(t.text_header == "Order {{1}}");
        CHECK(t.body == "Hi {{1}}, your order {{2}} ships on {{3}}. Reply STOP to opt out of these messages.");
        CHECK(t.footer == "Sent by Example Shop");
        CHECK(t.buttons == std::vector<std::string>{"Track", "Open"});  // quick replies first; empty ones left out
    }
    TEST_CASE("with json, each element of data is one compact line, the same JSON as the service's") {
        const std::vector<std::string> records = {record(1, "a"), R"({"x":[1,-2,3.50,true,null,{}],"y":"\u00e9\n"})",
                                                  "42", R"("text")", "[[]]"};
        std::vector<std::string> lines;
        auto read = service::read_templates(list_of(records),
                                            {.json = [&](std::string_view line) { lines.emplace_back(line); }});
        REQUIRE(read.ok());
        REQUIRE(lines.size() == records.size());
        for (size_t i = 0; i < records.size(); ++i) {
            CAPTURE(lines[i]);
            CHECK(lines[i].find('\n') == std::string::npos);
            CHECK(nlohmann::json::parse(lines[i]) == nlohmann::json::parse(records[i]));
        }
        CHECK(lines[1] == R"({"x":[1,-2,3.50,true,null,{}],"y":"é\n"})");     // numbers as the service wrote them
        CHECK(lines[0] == nlohmann::ordered_json::parse(records[0]).dump());  // compact, in the service's order
    }
    TEST_CASE("a body cut at its cap is refused, saying the list is over 16 MiB") {
        auto response = list_of({record(1, "a")});
        response.body_cut = true;
        CHECK(why(response) == "the service's template list is larger than 16 MiB, the most wacamp reads");
    }
    TEST_CASE("nesting 64 levels deep is read; 65 is refused, saying so, without reading on") {
        // {"data": [ record ]}: the body and data are 2 levels, a record's nested arrays the rest.
        CHECK(why(list_of({nested_record(62)})).empty());
        CHECK(why(list_of({nested_record(63)})) ==
              "the service's template list nests deeper than 64 levels: it cannot be read");
        // Deep, long and inside a record: still refused at once.
        CHECK(why(list_of({R"({"configuration":)" + nested_record(32000) + "}"})) ==
              "the service's template list nests deeper than 64 levels: it cannot be read");
    }
    TEST_CASE("a body that is not a template list says what it is instead") {
        CHECK(why(body("")) == "the service's template list is not valid JSON (at byte 1)");
        CHECK(why(body("<html>")) == "the service's template list is not valid JSON (at byte 1)");
        CHECK(why(body("[]")) == "the service's template list is not a JSON object");
        CHECK(why(body(R"({"success":true})")) == "the service's template list has no \"data\" array");
        CHECK(why(body(R"({"data":{}})")) == "the service's template list has no \"data\" array");
        CHECK(why(body(R"({"data":[],"data":[]})")) == "the service's template list names \"data\" twice");
        CHECK(why(body(R"({"data":[]} x)")).find("not valid JSON") != std::string::npos);
    }
    TEST_CASE("missing or mistyped fields are empty; elements that are no object are no record") {
        const auto list = records_of(
            list_of({R"({"_id":7,"configuration":{"name":["x"],"quickReply":{"text":"a"},"ctaButton":[1,{"text":2}]}})",
                     "3", R"({"status":"APPROVED"})"}));
        REQUIRE(list.size() == 2);
        CHECK(list[0].id.empty());
        CHECK(list[0].name.empty());
        CHECK(list[0].buttons.empty());
        CHECK(list[1].status == "APPROVED");
        CHECK(list[1].name.empty());
    }
    TEST_CASE("a member named twice counts as its last value, as a document would have it") {
        const auto list =
            records_of(list_of({R"({"status":"PAUSED","configuration":{"name":"old","body":"b"},)"
                                R"("status":"APPROVED","configuration":{"name":"new",)"
                                R"("quickReply":[{"text":"a"}],"quickReply":[{"text":"b","text":"c"}]}})"}));
        REQUIRE(list.size() == 1);
        CHECK(list[0].status == "APPROVED");
        CHECK(list[0].name == "new");
        CHECK(list[0].body.empty());
        CHECK(list[0].buttons == std::vector<std::string>{"c"});
    }
}
