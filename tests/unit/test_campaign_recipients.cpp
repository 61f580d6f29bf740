#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "campaign/recipients.hpp"
#include "campaign_file_fixture.hpp"
#include "fakes.hpp"

using campaign::Recipient;
using campaign::RecipientStream;
using campaign::Verdict;

namespace {

// Row 1 and 599 repeats of its number, its repeats index sorted with `repeats` (two runs on
// disk with a buffer of 300 pairs, read back 256 pairs a run at a time).
RecipientStream open_repeats(const campaign_file_test::Folder& folder, util::ExternalSortOptions repeats) {
    std::string csv = "phone,name\n";
    for (int row = 1; row <= 600; ++row) {
        csv += "+919812345678,Asha\n";
    }
    folder.put("samples/r.csv", csv);
    auto c = folder.load(campaign_file_test::k_minimal);
    REQUIRE(c);
    campaign::DuplicateOptions options;
    options.repeats = std::move(repeats);
    auto stream = RecipientStream::open(*c, options);
    REQUIRE(stream);
    return std::move(*stream);
}

struct Read {
    long long rows = 0;
    long long repeats = 0;
    std::optional<util::Error> error;  // why the stream stopped before its end
};

Read read_all(RecipientStream& stream) {
    Read read;
    Recipient r;
    auto more = stream.next(r);
    for (; more && *more; more = stream.next(r)) {
        ++read.rows;
        read.repeats += r.verdict == Verdict::duplicate ? 1 : 0;
    }
    if (!more) {
        read.error = more.error();
    }
    return read;
}

}  // namespace

TEST_SUITE("campaign::RecipientStream") {
    TEST_CASE("when the index of repeats cannot be read back, the stream stops instead of passing repeats as firsts") {
        campaign_file_test::Folder folder;
        fakes::TempDir temp;
        // The first run's refill, after its last pair in memory (row 257) was taken, fails as a
        // failing disk would.
        auto stream =
            open_repeats(folder, {.buffer_pairs = 300, .temp_dir = temp.path.string(), .fail_reads_after_bytes = 8192});
        const Read read = read_all(stream);
        CHECK(read.rows == 257);
        CHECK(read.repeats == 256);
        REQUIRE(read.error);
        CHECK(read.error->message == folder.str("samples/r.csv") +
                                         ": stopped at row 258 (line 259): the index of repeated numbers: "
                                         "cannot read back a temporary file: Input/output error");
    }

    TEST_CASE("each row's number is its own even when the list is rewritten between the two passes") {
        // The second pass reuses the numbers the first normalised, but only where the CSV still
        // holds the same text: a list rewritten in place after open() sends to the new numbers.
        campaign_file_test::Folder folder;
        const auto list = [](const char* prefix) {
            std::string csv = "phone,name\n";
            for (int row = 1; row <= 20000; ++row) {
                csv += fmt::format("{}{},Asha\n", prefix, 10000000 + row);
            }
            return csv;
        };
        folder.put("samples/r.csv", list("+9198"));
        auto c = folder.load(campaign_file_test::k_minimal);
        REQUIRE(c);
        auto stream = RecipientStream::open(*c);
        REQUIRE(stream);
        folder.put("samples/r.csv", list("+9197"));  // same length, same file: what is not read yet changes
        long long rows = 0;
        long long rewritten = 0;
        Recipient r;
        while (*stream->next(r)) {
            ++rows;
            REQUIRE(r.verdict == Verdict::ok);
            CHECK(r.message.wa_id == r.raw_phone.substr(1));
            rewritten += r.raw_phone.starts_with("+9197") ? 1 : 0;
        }
        CHECK(rows == 20000);
        CHECK(rewritten > 0);  // the rewrite reached the second pass: the case is tested
    }

    TEST_CASE("without a usable temporary folder the numbers are normalised twice, each row's its own") {
        // The first pass's numbers go to a temporary file; when none can be made (TMPDIR=/proc),
        // the shortcut is off and the stream reads as it would with it.
        campaign_file_test::Folder folder;
        std::string csv = "phone,name\n";
        for (int row = 1; row <= 300; ++row) {
            csv += fmt::format("+9198{},Asha\n", 10000000 + row);
        }
        folder.put("samples/r.csv", csv);
        auto c = folder.load(campaign_file_test::k_minimal);
        REQUIRE(c);
        const char* before = std::getenv("TMPDIR");
        const std::string saved = before != nullptr ? before : "";
        setenv("TMPDIR", "/proc", 1);
        auto stream = RecipientStream::open(*c);
        before != nullptr ? setenv("TMPDIR", saved.c_str(), 1) : unsetenv("TMPDIR");
        REQUIRE(stream);
        long long rows = 0;
        Recipient r;
        while (*stream->next(r)) {
            ++rows;
            CHECK(r.verdict == Verdict::ok);
            CHECK(r.message.wa_id == fmt::format("9198{}", 10000000 + rows));
        }
        CHECK(rows == 300);
    }

    TEST_CASE("a row whose rendered image a check refused is invalid, with the reason; it is no first of its number") {
        campaign_file_test::Folder folder;
        folder.put("samples/r.csv",
                   "phone,name,img\n"
                   "+919812345678,Asha,a.gif\n"
                   "+919812345678,Asha,b.png\n"
                   "+919812345679,Vikram,a.gif\n"
                   "+919812345680,Meera,b.png\n");
        auto c = folder.load(campaign_file_test::minimal_with("type: text\n  text: \"Hi {{name}}\"",
                                                              "type: image\n  source: \"https://h.example/{{img}}\""));
        REQUIRE(c);
        campaign::MediaVerdicts media;
        media.refuse("https://h.example/a.gif", "content type image/gif; WhatsApp takes image/jpeg or image/png");
        auto stream = RecipientStream::open(*c, {}, {.media = &media});
        REQUIRE(stream);
        std::vector<std::pair<Verdict, std::string>> rows;
        Recipient r;
        while (*stream->next(r)) {
            rows.emplace_back(r.verdict, r.reason);
        }
        const std::string refused =
            "image https://h.example/a.gif: content type image/gif; WhatsApp takes image/jpeg or image/png";
        CHECK(rows ==
              std::vector<std::pair<Verdict, std::string>>{
                  {Verdict::invalid, refused}, {Verdict::ok, ""}, {Verdict::invalid, refused}, {Verdict::ok, ""}});
    }

    TEST_CASE("a row whose message would carry the API key, in any form, is invalid and never repeats it") {
        campaign_file_test::Folder folder;
        folder.put("samples/r.csv",
                   "phone,name\n"
                   "+919812345678,key-0123456789\n"
                   "+919812345679,Vikram\n"
                   "+919812345680,KEY-0123456789\n"
                   "+919812345681,a2V5LTAxMjM0NTY3ODk=\n");  // the key in base64
        auto c = folder.load(campaign_file_test::k_minimal);
        REQUIRE(c);
        auto stream = RecipientStream::open(*c);
        REQUIRE(stream);
        std::vector<Verdict> verdicts;
        Recipient r;
        while (*stream->next(r)) {
            verdicts.push_back(r.verdict);
            if (r.verdict == Verdict::invalid) {
                CHECK(r.reason.find("value of a secret") != std::string::npos);
                CHECK(r.reason.find("0123456789") == std::string::npos);
            }
        }
        CHECK(verdicts == std::vector<Verdict>{Verdict::invalid, Verdict::ok, Verdict::invalid, Verdict::invalid});
    }

    TEST_CASE("a row whose message would carry the API key with invisible characters inside is invalid") {
        campaign_file_test::Folder folder;
        folder.put("samples/r.csv",
                   "phone,name\n"
                   "+919812345678,key-\u200b0123456789\n"  // a zero-width space
                   "+919812345679,Vikram\n"
                   "+919812345680,key\u00ad-0123\ufeff456789\n"  // a soft hyphen, a BOM
                   "+919812345681,key-0123\u2060456789\n");      // a word joiner
        auto c = folder.load(campaign_file_test::k_minimal);
        REQUIRE(c);
        auto stream = RecipientStream::open(*c);
        REQUIRE(stream);
        std::vector<Verdict> verdicts;
        Recipient r;
        while (*stream->next(r)) {
            verdicts.push_back(r.verdict);
            if (r.verdict == Verdict::invalid) {
                CHECK(r.reason.find("value of a secret") != std::string::npos);
                CHECK(r.reason.find("0123") == std::string::npos);
            }
        }
        CHECK(verdicts == std::vector<Verdict>{Verdict::invalid, Verdict::ok, Verdict::invalid, Verdict::invalid});
    }

    TEST_CASE("without a default country, a bare local number of the list's dominant country is invalid") {
        campaign_file_test::Folder folder;
        folder.put("samples/r.csv",
                   "phone,name\n"
                   "+91 98123 45678,Asha\n"
                   "0091 98123 45679,Vikram\n"
                   "919812345680,Meera\n"
                   "6633774138,Ravi\n"
                   "+66 33774139,Somchai\n");
        auto c = folder.load(campaign_file_test::k_minimal);
        REQUIRE(c);
        auto stream = RecipientStream::open(*c);
        REQUIRE(stream);
        CHECK(stream->survey().dominant_country == "IN");
        CHECK(stream->survey().rows == 5);
        CHECK(stream->survey().invalid == 1);
        std::vector<std::string> reasons;
        Recipient r;
        for (auto more = stream->next(r); more && *more; more = stream->next(r)) {
            reasons.push_back(r.verdict == Verdict::ok ? r.message.wa_id : r.reason);
        }
        CHECK(reasons == std::vector<std::string>{
                             "919812345678", "919812345679", "919812345680",
                             "column \"phone\": \"6633774138\" reads two ways: +6633774138 in TH, or as a local "
                             "number +916633774138 in IN (most of the list's numbers are in IN): set "
                             "recipients.default_country, or write the number with +",
                             "6633774139"});
    }

    TEST_CASE("with a default country, every local number is read as that country's") {
        campaign_file_test::Folder folder;
        folder.put("samples/r.csv", "phone,name\n+91 98123 45678,Asha\n6633774138,Ravi\n6581727372,Meera\n");
        auto c = folder.load(
            campaign_file_test::minimal_with("file: samples/r.csv", "file: samples/r.csv\n  default_country: IN"));
        REQUIRE(c);
        auto stream = RecipientStream::open(*c);
        REQUIRE(stream);
        CHECK(stream->survey().dominant_country.empty());
        std::vector<std::string> wa_ids;
        Recipient r;
        for (auto more = stream->next(r); more && *more; more = stream->next(r)) {
            wa_ids.push_back(r.message.wa_id);
        }
        CHECK(wa_ids == std::vector<std::string>{"919812345678", "916633774138", "916581727372"});
    }

    TEST_CASE("the survey groups invalid rows by kind of reason, most common first") {
        campaign_file_test::Folder folder;
        std::string csv = "phone,name\n";
        for (int i = 0; i < 3; ++i) {
            csv += "+91 98123 4567" + std::to_string(i) + ",\n";  // no name
        }
        for (int i = 0; i < 5; ++i) {
            csv += "12345" + std::to_string(i) + ",Asha\n";
        }
        csv += "+919812345699,Meera\n";
        folder.put("samples/r.csv", csv);
        auto c = folder.load(campaign_file_test::k_minimal);
        REQUIRE(c);
        auto stream = RecipientStream::open(*c);
        REQUIRE(stream);
        const auto& survey = stream->survey();
        CHECK(survey.rows == 9);
        CHECK(survey.invalid == 8);
        CHECK(survey.reasons ==
              std::vector<std::pair<std::string, long long>>{
                  {"column \"phone\": \"…\" is not a valid number with a country code (and no default country is set "
                   "for local numbers)",
                   5},
                  {"column \"name\" is empty", 3}});
    }

    TEST_CASE("a stream read to the end ends with false, not an error") {
        campaign_file_test::Folder folder;
        fakes::TempDir temp;
        auto stream = open_repeats(folder, {.buffer_pairs = 300, .temp_dir = temp.path.string()});
        const Read read = read_all(stream);
        CHECK(read.rows == 600);
        CHECK(read.repeats == 599);
        CHECK_FALSE(read.error);
    }
}

namespace {

campaign::ListSurvey survey_of(long long rows, long long invalid) {
    campaign::ListSurvey s;
    s.rows = rows;
    s.invalid = invalid;
    s.reasons = {{"column \"phone\": \"…\" is not a valid number for IN", invalid}};
    return s;
}

}  // namespace

TEST_SUITE("campaign::too_many_invalid") {
    TEST_CASE("more than the share and more than 10 rows refuse the campaign, naming the reasons") {
        campaign_file_test::Folder folder;
        auto c = folder.load(campaign_file_test::k_minimal);
        REQUIRE(c);
        auto refused = campaign::too_many_invalid(*c, survey_of(200, 11));
        REQUIRE(refused);
        CHECK(*refused == folder.str("campaign.yaml") + ": 11 of 200 rows of " + folder.str("samples/r.csv") +
                              " (5.5%) are invalid, more than abort.max_invalid_share (5.0%) allows: nothing is "
                              "sent. The most common reasons:\n"
                              "  11 × column \"phone\": \"…\" is not a valid number for IN\n"
                              "Fix the list, or raise abort.max_invalid_share in " +
                              folder.str("campaign.yaml") + " to leave these rows out.");
    }

    TEST_CASE("up to 10 invalid rows, or up to the share, never refuse") {
        campaign_file_test::Folder folder;
        auto c = folder.load(campaign_file_test::k_minimal);
        REQUIRE(c);
        CHECK_FALSE(campaign::too_many_invalid(*c, survey_of(10, 10)));
        CHECK_FALSE(campaign::too_many_invalid(*c, survey_of(220, 11)));
        CHECK_FALSE(campaign::too_many_invalid(*c, survey_of(0, 0)));
    }

    TEST_CASE("a raised abort.max_invalid_share lets the list through; the refusal points at the key") {
        campaign_file_test::Folder folder;
        auto c = folder.load(campaign_file_test::k_minimal + "abort: {max_invalid_share: 0.5}\n");
        REQUIRE(c);
        CHECK_FALSE(campaign::too_many_invalid(*c, survey_of(100, 50)));
        auto refused = campaign::too_many_invalid(*c, survey_of(100, 51));
        REQUIRE(refused);
        CHECK(refused->starts_with(folder.str("campaign.yaml") + ":11: 51 of 100 rows"));
    }

    TEST_CASE("without a default country, the refusal says which to set") {
        campaign_file_test::Folder folder;
        auto c = folder.load(campaign_file_test::k_minimal);
        REQUIRE(c);
        auto survey = survey_of(100, 40);
        survey.dominant_country = "IN";
        auto refused = campaign::too_many_invalid(*c, survey);
        REQUIRE(refused);
        CHECK(refused->find("Most of the list's numbers are in IN: if its numbers without + are local numbers, set "
                            "recipients.default_country: IN.") != std::string::npos);
    }
}

TEST_SUITE("campaign::RecipientStream::check_columns") {
    // A template campaign whose list has an order_id column; its body starts on line 12.
    const std::string k_order_csv = "phone,name,order_id\n+919812345678,Asha,A-1\n";
    std::string order_campaign(const std::string& user_name, const std::string& body) {
        return "name: orders\n"
               "service:\n"
               "  base_url: https://api.example.com\n"
               "  api_key: ${WACAMP_API_KEY}\n"
               "recipients:\n"
               "  file: samples/r.csv\n"
               "  columns: {wa_id: phone, user_name: " +
               user_name +
               "}\n"
               "message:\n"
               "  type: template\n"
               "  template: order_update\n"
               "  body:\n" +
               body;
    }

    TEST_CASE("every misspelled column and placeholder is named at once, each with its line and the column meant") {
        campaign_file_test::Folder folder;
        folder.put("samples/r.csv", k_order_csv);
        auto c =
            folder.load(order_campaign("nme", "    - \"{{name}}\"\n    - \"{{ordr_id}}\"\n    - \"{{Order_ID}}\"\n"));
        REQUIRE(c);
        const std::string file = folder.campaign_path();
        const auto problems = RecipientStream::check_columns(*c);
        REQUIRE(problems);
        CHECK(*problems == file + ":7: recipients.columns.user_name: column \"nme\" is not in " +
                               folder.str("samples/r.csv") +
                               " (did you mean \"name\"?) (columns: phone, name, order_id)\n" + file +
                               ":13: message.body[1]: placeholder {{ordr_id}} names no column (did you mean "
                               "\"order_id\"?); columns are: phone, name, order_id\n" +
                               file +
                               ":14: message.body[2]: placeholder {{Order_ID}} names no column (did you mean "
                               "\"order_id\"?); columns are: phone, name, order_id");
        // open() says the same.
        auto stream = RecipientStream::open(*c);
        REQUIRE_FALSE(stream);
        CHECK(stream.error().message == *problems);
    }

    TEST_CASE("a placeholder far from every column suggests none") {
        campaign_file_test::Folder folder;
        folder.put("samples/r.csv", k_order_csv);
        auto c = folder.load(order_campaign("name", "    - \"{{delivery_date}}\"\n"));
        REQUIRE(c);
        const auto problems = RecipientStream::check_columns(*c);
        REQUIRE(problems);
        CHECK(problems->find("placeholder {{delivery_date}} names no column; columns are:") != std::string::npos);
        CHECK(problems->find("did you mean") == std::string::npos);
    }

    TEST_CASE("a campaign file with problems of its own is still checked against the CSV, as far as it was read") {
        campaign_file_test::Folder folder;
        folder.put("samples/r.csv", k_order_csv);
        folder.put("campaign.yaml", order_campaign("name", "    - \"{{ordr_id}}\"\nrate: {per_secnd: 5}\n") +
                                        "retry: {max_attempts: many}\n");
        auto draft = campaign::read_campaign(folder.campaign_path(), campaign_file_test::k_env);
        REQUIRE(draft);
        const std::string file = folder.campaign_path();
        CHECK(draft->problems ==
              std::vector<std::string>{file + ":13: unknown key \"rate.per_secnd\" (did you mean \"per_second\"?)",
                                       file + ":14: retry.max_attempts: expected a whole number, got \"many\""});
        const auto problems = RecipientStream::check_columns(draft->campaign);
        REQUIRE(problems);
        CHECK(*problems == file +
                               ":12: message.body[0]: placeholder {{ordr_id}} names no column (did you mean "
                               "\"order_id\"?); columns are: phone, name, order_id");
    }

    TEST_CASE("a campaign file whose list or columns could not be read is not checked against a CSV") {
        campaign_file_test::Folder folder;
        std::string no_file = campaign_file_test::k_minimal;
        no_file.replace(no_file.find("samples/r.csv"), 13, "samples/missing.csv");
        folder.put("campaign.yaml", no_file);
        auto missing = campaign::read_campaign(folder.campaign_path(), campaign_file_test::k_env);
        REQUIRE(missing);
        CHECK(missing->problems.size() == 1);
        CHECK_FALSE(RecipientStream::check_columns(missing->campaign));
        folder.put("campaign.yaml",
                   campaign_file_test::minimal_with("  columns: {wa_id: phone, user_name: name}\n", ""));
        auto no_columns = campaign::read_campaign(folder.campaign_path(), campaign_file_test::k_env);
        REQUIRE(no_columns);
        CHECK(no_columns->problems.size() == 1);
        CHECK_FALSE(RecipientStream::check_columns(no_columns->campaign));
    }
}
