// The plan's cost: validate and the dry run price the rows to send by their number's country and
// the template's category, with the campaign's own rate card, and keep the estimate in the JSON
// summary and the dry-run log's end record.
#include <doctest/doctest.h>

#include <fstream>
#include <set>

#include "fixtures.hpp"

using namespace e2e;
using nlohmann::json;

namespace {

// Three countries: three numbers of India, two of Brazil, one of Kenya (the `*` row's).
const std::string k_csv =
    "phone,name,user_id\n"
    "+919812345601,Asha,u-1\n"
    "+919812345602,Ravi,u-2\n"
    "+5511912345678,Bruna,u-3\n"
    "+919812345603,Meera,u-4\n"
    "+254712345678,Wanjiru,u-5\n"
    "+5511912345679,Caio,u-6\n";

// Round prices, so the amounts are easy to check by hand.
const std::string k_card =
    "# effective: 2026-10-01\n"
    "country,marketing,utility,authentication\n"
    "IN,0.25,0.5,0.5\n"
    "BR,1,1.25,1.25\n"
    "*,3,2,2\n";

const std::string k_thank_you = "message:\n  type: template\n  template: thank_you\n";  // UTILITY, no variables

// A fixture of the three countries' list, the `thank_you` template and k_card as its rate card.
struct CostFixture {
    Sandbox sandbox;
    CampaignFixture f{sandbox, k_csv, "pricing:\n  rate_card: rates.csv\n", k_thank_you};
    std::filesystem::path card = f.dir.write("rates.csv", k_card);
};

// The send-template requests the sandbox journaled.
int template_sends(const Sandbox& sandbox) {
    int n = 0;
    for (const auto& entry : sandbox.journal()) {
        n += entry.value("path", "").find("send-template") != std::string::npos ? 1 : 0;
    }
    return n;
}

}  // namespace

TEST_SUITE("e2e: the campaign's cost") {
    TEST_CASE("the dry run prices each country's rows with the campaign's card and keeps plan.cost") {
        CostFixture c;
        auto text = c.f.wacamp({"run", "--dry-run", c.f.campaign.string()});
        CAPTURE(text.out);
        CAPTURE(text.err);
        REQUIRE(text.exit_code == 0);
        CHECK(contains(text.out, "  cost: about 6.00 USD for 6 UTILITY messages (rate card " + c.card.string() +
                                     ", effective 2026-10-01)\n"
                                     "    IN 3 × 0.5 = 1.50\n"
                                     "    BR 2 × 1.25 = 2.50\n"
                                     "    KE 1 × 2 = 2.00 (the * price)\n"));
        CHECK(template_sends(c.sandbox) == 0);

        auto json_run = c.f.wacamp({"run", "--dry-run", c.f.campaign.string(), "--log-format", "json"});
        REQUIRE(json_run.exit_code == 0);
        const auto lines = of_event(json_lines(json_run.out), "dry_run");
        REQUIRE(lines.size() == 1);
        const json expected = json::parse(R"({"currency": "USD", "total": 6.0, "messages": 6, "category": "UTILITY",
            "rate_card": ")" + c.card.string() +
                                          R"(", "effective": "2026-10-01",
            "by_country": {"IN": {"messages": 3, "price": 0.5, "amount": 1.5},
                           "BR": {"messages": 2, "price": 1.25, "amount": 2.5},
                           "KE": {"messages": 1, "price": 2.0, "amount": 2.0}}})");
        CHECK(lines[0]["plan"]["cost"] == expected);
        const auto records = read_jsonl(c.f.dir.path() / "results" / "e2e.dry-run.jsonl");
        REQUIRE_FALSE(records.empty());
        CHECK(records.back()["event"] == "end");
        CHECK(records.back()["plan"]["cost"] == expected);
        // The HTML report of the dry-run log shows the cost by country.
        auto html =
            c.f.wacamp({"report", (c.f.dir.path() / "results" / "e2e.dry-run.jsonl").string(), "--format", "html"});
        CAPTURE(html.err);
        REQUIRE(html.exit_code == 0);
        CHECK(contains(html.out, "<h2>The estimated cost</h2>"));
        CHECK(contains(html.out, "About 6.00 USD for 6 UTILITY messages"));
        CHECK(contains(html.out, "<td>IN</td>"));
        CHECK(contains(html.out, ">1.50<"));
        CHECK(contains(html.out, ">2.00<"));
        // The text and JSON reports too.
        const auto dry_log = (c.f.dir.path() / "results" / "e2e.dry-run.jsonl").string();
        auto report_text = c.f.wacamp({"report", dry_log});
        REQUIRE(report_text.exit_code == 0);
        CHECK(contains(report_text.out,
                       "\nEstimated cost (the dry run's plan)\n  cost: about 6.00 USD for 6 UTILITY "
                       "messages (rate card " +
                           c.card.string() + ", effective 2026-10-01)\n    IN 3 × 0.5 = 1.50\n"));
        auto report_json = c.f.wacamp({"report", dry_log, "--format", "json"});
        REQUIRE(report_json.exit_code == 0);
        CHECK(json::parse(report_json.out)["plan"]["cost"] == expected);
    }

    TEST_CASE("validate prints the cost after the plan; --offline prices the template as MARKETING, saying so") {
        CostFixture c;
        auto r = c.f.wacamp({"validate", c.f.campaign.string()});
        CAPTURE(r.out);
        CAPTURE(r.err);
        REQUIRE(r.exit_code == 0);
        CHECK(contains(r.out, "cost: about 6.00 USD for 6 UTILITY messages"));
        CHECK(contains(r.out, "\n  KE 1 × 2 = 2.00 (the * price)\n"));
        auto offline = c.f.wacamp({"validate", c.f.campaign.string(), "--offline"});
        CAPTURE(offline.out);
        REQUIRE(offline.exit_code == 0);
        CHECK(contains(offline.out, "cost: about 5.75 USD for 6 MARKETING messages"));
        CHECK(contains(offline.out, "  category not checked"));
    }

    TEST_CASE("rows the ledger holds back are not priced") {
        CostFixture c;
        REQUIRE(c.f.wacamp({"suppress", "add", "+919812345601", "--campaign", c.f.campaign.string()}).exit_code == 0);
        auto r = c.f.wacamp({"validate", c.f.campaign.string()});
        CAPTURE(r.out);
        CAPTURE(r.err);
        REQUIRE(r.exit_code == 0);
        CHECK(contains(r.out, "cost: about 5.50 USD for 5 UTILITY messages"));
        CHECK(contains(r.out, "\n  IN 2 × 0.5 = 1.00\n"));
    }

    TEST_CASE("a bad card is a problem of the campaign file, naming the card's line; nothing is read or sent") {
        CostFixture c;
        c.f.dir.write("rates.csv", "country,marketing,utility,authentication\nIN,0.1,abc,0.1\n");
        auto r = c.f.wacamp({"validate", c.f.campaign.string()});
        CAPTURE(r.err);
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err, c.card.string() + ":2: utility: \"abc\" is not a price"));
        CHECK(contains(r.err, c.card.string() + ":1: no `*` row"));
    }

    TEST_CASE("a card dated more than 180 days ago is warned of once, naming its date and the key") {
        CostFixture c;
        c.f.dir.write("rates.csv", "# effective: 2020-01-01\n" + k_card.substr(k_card.find('\n') + 1));
        auto r = c.f.wacamp({"run", "--dry-run", c.f.campaign.string()});
        CAPTURE(r.err);
        REQUIRE(r.exit_code == 0);
        const std::string warning = "is dated 2020-01-01, more than 180 days ago";
        CHECK(contains(r.err, warning));
        CHECK(r.err.find(warning) == r.err.rfind(warning));
        CHECK(contains(r.err, "set pricing.rate_card"));
    }

    TEST_CASE("a text campaign costs nothing, said plainly") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, k_csv);
        auto r = f.wacamp({"run", "--dry-run", f.campaign.string(), "--log-format", "json"});
        CAPTURE(r.out);
        REQUIRE(r.exit_code == 0);
        const auto lines = of_event(json_lines(r.out), "dry_run");
        REQUIRE(lines.size() == 1);
        CHECK(lines[0]["plan"]["cost"]["total"] == 0);
        CHECK(lines[0]["plan"]["cost"]["category"].is_null());
        CHECK(lines[0]["plan"]["cost"]["rate_card"].is_null());
        auto text = f.wacamp({"validate", f.campaign.string()});
        CHECK(contains(text.out, "cost: none: text messages are free inside the customer-service window"));
    }
}

namespace {

// Two numbers of India, two of the United States, one of Canada (which shares +1).
const std::string k_us_csv =
    "phone,name,user_id\n"
    "+919812345601,Asha,u-1\n"
    "+16502530000,Ann,u-2\n"
    "+919812345602,Ravi,u-3\n"
    "+12127365000,Bob,u-4\n"
    "+14169671111,Chloe,u-5\n";
const std::string k_us_number = "16502530000";
const std::string k_us_number_2 = "12127365000";

// The sandbox's MARKETING template spring_sale, with `extra` message keys.
std::string spring_sale(const std::string& extra = "") {
    return "message:\n  type: template\n  template: spring_sale\n"
           "  header: {image: \"https://cdn.example.com/spring.jpg\"}\n  body: [\"{{name}}\", \"10%\"]\n" +
           extra;
}

// The send-template requests the sandbox journaled for `wa_id`.
int template_requests_for(const Sandbox& sandbox, const std::string& wa_id) {
    int n = 0;
    for (const auto& entry : sandbox.journal()) {
        n += entry.value("path", "").find("send-template") != std::string::npos && entry.value("wa_id", "") == wa_id
                 ? 1
                 : 0;
    }
    return n;
}

// Checks that the sandbox got one send-template request for each number of k_csv.
void check_each_sent_once(const Sandbox& sandbox) {
    for (const std::string wa_id :
         {"919812345601", "919812345602", "5511912345678", "919812345603", "254712345678", "5511912345679"}) {
        CAPTURE(wa_id);
        CHECK(template_requests_for(sandbox, wa_id) == 1);
    }
}

}  // namespace

TEST_SUITE("e2e: the campaign's cost") {
    TEST_CASE(
        "a MARKETING template is sent nothing to the United States: region_paused, counted apart, looked at again") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, k_us_csv, "pricing:\n  rate_card: rates.csv\n", spring_sale());
        f.dir.write("rates.csv", k_card);
        auto plan = f.wacamp({"validate", f.campaign.string()});
        CAPTURE(plan.out);
        CAPTURE(plan.err);
        REQUIRE(plan.exit_code == 0);
        CHECK(contains(plan.out, "2 recipient(s) not sent: Meta delivers no MARKETING template to their region"));
        CHECK(contains(plan.out, "holds none of them back"));                        // the ledger held nothing
        CHECK(contains(plan.out, "cost: about 3.50 USD for 3 MARKETING messages"));  // 2 × 0.25 + 1 × 3

        auto run = f.wacamp({"run", f.campaign.string(), "--yes"});
        CAPTURE(run.out);
        CAPTURE(run.err);
        REQUIRE(run.exit_code == 0);
        CHECK(template_requests_for(sandbox, k_us_number) == 0);
        CHECK(template_requests_for(sandbox, k_us_number_2) == 0);
        CHECK(template_requests_for(sandbox, "14169671111") == 1);  // Canada: not paused
        CHECK(template_sends(sandbox) == 3);
        auto us = result_of(f, 2);
        CHECK(us["status"] == "skipped");
        CHECK(us["cause"] == "region_paused");
        CHECK(contains(us.value("error", ""), "numbers of US"));

        // A rerun looks at them again, records nothing new while they stay paused.
        const auto lines_before = f.records().size();
        auto again = f.wacamp({"run", f.campaign.string(), "--yes"});
        CAPTURE(again.err);
        REQUIRE(again.exit_code == 0);
        CHECK(template_sends(sandbox) == 3);
        CHECK(f.records().size() <= lines_before + 2);  // its campaign and end records only

        // paused_regions: [] sends them, once each.
        std::string yaml = read_file(f.campaign);
        yaml.replace(yaml.find("message:"), 8, "message:\n  paused_regions: []");
        f.dir.write(f.campaign.filename().string(), yaml);
        auto resumed = f.wacamp({"run", f.campaign.string(), "--yes", "--force"});
        CAPTURE(resumed.err);
        REQUIRE(resumed.exit_code == 0);
        CHECK(template_requests_for(sandbox, k_us_number) == 1);
        CHECK(template_requests_for(sandbox, k_us_number_2) == 1);
        CHECK(template_sends(sandbox) == 5);
        CHECK(result_of(f, 2)["status"] == "sent");
    }

    TEST_CASE("message.paused_regions must name regions, and only a template campaign has it") {
        Sandbox sandbox;
        CampaignFixture f(sandbox, k_us_csv, "", spring_sale("  paused_regions: [US, XX]\n"));
        auto r = f.wacamp({"validate", f.campaign.string(), "--offline"});
        CAPTURE(r.err);
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err, "message.paused_regions"));
        CHECK(contains(r.err, "\"XX\""));
        CampaignFixture text(sandbox, k_us_csv, "", "message:\n  type: text\n  text: hi\n  paused_regions: [US]\n");
        auto t = text.wacamp({"validate", text.campaign.string(), "--offline"});
        CAPTURE(t.err);
        CHECK(t.exit_code == 2);
        CHECK(contains(t.err, "paused_regions"));
        CHECK(contains(t.err, "only applies to type template"));
    }
}

TEST_SUITE("e2e: the campaign's budget") {
    TEST_CASE("a budget the estimate passes is refused before any send, by run, validate and the dry run") {
        CostFixture c;
        auto run = c.f.wacamp({"run", c.f.campaign.string(), "--yes", "--budget", "5"});
        CAPTURE(run.err);
        CHECK(run.exit_code == 2);
        CHECK(contains(run.err,
                       "over budget: 0.00 USD already spent + about 6.00 USD for the 6 message(s) left = "
                       "6.00 USD, more than the budget of 5.00 USD"));
        CHECK(contains(run.err, "BR 2 × 1.25 = 2.50"));
        CHECK(template_sends(c.sandbox) == 0);

        std::string yaml = read_file(c.f.campaign);
        yaml.replace(yaml.find("pricing:\n"), 9, "pricing:\n  budget: 5.50\n");
        c.f.dir.write(c.f.campaign.filename().string(), yaml);
        auto validate = c.f.wacamp({"validate", c.f.campaign.string()});
        CAPTURE(validate.err);
        CHECK(validate.exit_code == 2);
        CHECK(contains(validate.err, "more than the budget of 5.50 USD"));
        auto dry = c.f.wacamp({"run", "--dry-run", c.f.campaign.string()});
        CHECK(dry.exit_code == 2);
        CHECK(contains(dry.out, "cost: about 6.00 USD"));  // the plan is shown, then refused
        CHECK(contains(dry.err, "more than the budget of 5.50 USD"));
        // --budget overrides pricing.budget for one run.
        auto sent = c.f.wacamp({"run", c.f.campaign.string(), "--yes", "--budget", "6"});
        CAPTURE(sent.err);
        CHECK(sent.exit_code == 0);
        CHECK(template_sends(c.sandbox) == 6);
    }

    TEST_CASE("each sent row carries its price, the campaign record its card; a resume counts what was spent") {
        CostFixture c;
        // The first three rows: IN 0.5, IN 0.5, BR 1.25.
        auto first = c.f.wacamp({"run", c.f.campaign.string(), "--yes", "--limit", "3"});
        CAPTURE(first.err);
        REQUIRE(first.exit_code == 0);
        const auto records = c.f.records();
        REQUIRE_FALSE(records.empty());
        CHECK(records[0]["rate_card"]["path"] == std::filesystem::absolute(c.card).lexically_normal().string());
        CHECK(records[0]["rate_card"]["sha256"].get<std::string>().size() == 64);
        CHECK(records[0]["rate_card"]["effective"] == "2026-10-01");
        CHECK(result_of(c.f, 1)["price"] == 0.5);
        CHECK(result_of(c.f, 3)["price"] == 1.25);

        // 2.25 spent + 3.75 left (IN 0.5, KE 2, BR 1.25) = 6.00: a budget of 5 is refused up front.
        const std::string log = c.f.log.string();
        auto refused = c.f.wacamp({"resume", log, "--budget", "5"});
        CAPTURE(refused.err);
        CHECK(refused.exit_code == 2);
        CHECK(contains(refused.err, "2.25 USD already spent + about 3.75 USD for the 3 message(s) left"));
        CHECK(template_sends(c.sandbox) == 3);

        // A card changed since is not a changed campaign: no --force; its new SHA-256 is recorded.
        c.f.dir.write("rates.csv", k_card + "# a comment\n");
        auto resumed = c.f.wacamp({"resume", log, "--budget", "6"});
        CAPTURE(resumed.err);
        CHECK(resumed.exit_code == 0);
        CHECK(template_sends(c.sandbox) == 6);
        check_each_sent_once(c.sandbox);
        std::set<std::string> shas;
        for (const auto& r : c.f.records()) {
            if (r.value("event", "") == "campaign") {
                shas.insert(r["rate_card"]["sha256"].get<std::string>());
            }
        }
        CHECK(shas.size() == 2);

        // The report adds the prices of the sent rows up.
        auto report = c.f.wacamp({"report", log, "--format", "json"});
        CAPTURE(report.out);
        REQUIRE(report.exit_code == 0);
        const auto j = nlohmann::json::parse(report.out);
        CHECK(j["spend"]["total"] == 6.0);
        CHECK(j["spend"]["messages"] == 6);
    }
}

TEST_SUITE("e2e: a template that changes under a campaign") {
    TEST_CASE("message.category pins the template's category: re-categorised under a campaign, resume refuses") {
        // thank_you (UTILITY) turns MARKETING in the template list once 2 template sends were accepted.
        Sandbox sandbox({"--recategorize", "thank_you=MARKETING@2"});
        CampaignFixture f(sandbox, k_csv, "pricing:\n  rate_card: rates.csv\n", k_thank_you + "  category: utility\n");
        f.dir.write("rates.csv", k_card);
        auto first = f.wacamp({"run", f.campaign.string(), "--yes", "--limit", "2"});
        CAPTURE(first.err);
        REQUIRE(first.exit_code == 0);
        CHECK(template_sends(sandbox) == 2);
        auto resumed = f.wacamp({"resume", f.log.string()});
        CAPTURE(resumed.err);
        CHECK(resumed.exit_code == 2);
        CHECK(contains(resumed.err,
                       "template \"thank_you\" is MARKETING in the template list, not UTILITY "
                       "(message.category)"));
        CHECK(contains(resumed.err, "set message.category: MARKETING"));
        CHECK(template_sends(sandbox) == 2);
        auto run = f.wacamp({"run", f.campaign.string(), "--yes"});
        CHECK(run.exit_code == 2);
        CHECK(template_sends(sandbox) == 2);
    }

    TEST_CASE("re-categorised since the campaign last sent: resume stops unless a budget or the pin says go on") {
        // thank_you (UTILITY) turns MARKETING in the template list once 2 template sends were accepted.
        Sandbox sandbox({"--recategorize", "thank_you=MARKETING@2"});
        CampaignFixture f(sandbox, k_csv, "pricing:\n  rate_card: rates.csv\n", k_thank_you);
        f.dir.write("rates.csv", k_card);
        REQUIRE(f.wacamp({"run", f.campaign.string(), "--yes", "--limit", "2"}).exit_code == 0);
        REQUIRE(template_sends(sandbox) == 2);
        // No terminal, no budget, no pin: stopped before any send, saying what to set.
        auto stopped = f.wacamp({"resume", f.log.string()});
        CAPTURE(stopped.err);
        CHECK(stopped.exit_code == 3);
        CHECK(contains(stopped.err,
                       "template \"thank_you\" was UTILITY when this campaign last sent and is "
                       "MARKETING in the template list now"));
        // The 4 rows left at MARKETING prices: BR 1 + IN 0.25 + KE 3 + BR 1.
        CHECK(contains(stopped.err, "cost: about 5.25 USD for 4 MARKETING messages"));
        CHECK(contains(stopped.err, "set message.category: MARKETING or a budget (pricing.budget, or --budget)"));
        CHECK(contains(stopped.err, "template_changed"));
        CHECK(template_sends(sandbox) == 2);
        // On a terminal it asks again, with the new estimate.
        auto asked = on_terminal(f, {"resume", f.log.string()}, "n\n");
        CAPTURE(asked.out);
        CHECK(asked.exit_code == 3);
        CHECK(contains(asked.out, "the template was UTILITY when this campaign last sent and is MARKETING now"));
        CHECK(contains(asked.out, "Send 4 messages? [y/N]"));
        CHECK(template_sends(sandbox) == 2);
        // A budget lets it go on: each row sent once in all, the rest at the new category's price.
        auto resumed = f.wacamp({"resume", f.log.string(), "--budget", "100"});
        CAPTURE(resumed.err);
        CHECK(resumed.exit_code == 0);
        CHECK(template_sends(sandbox) == 6);
        check_each_sent_once(sandbox);
        CHECK(result_of(f, 1)["price"] == 0.5);
        CHECK(result_of(f, 4)["price"] == 0.25);
        CHECK(result_of(f, 4)["category"] == "MARKETING");
    }

    TEST_CASE("re-categorised while sending: the recheck stops the run, then a raised budget sends each row once") {
        // MARKETING costs more than UTILITY on this card; thank_you turns MARKETING after the first send.
        const std::string card =
            "# effective: 2026-10-01\n"
            "country,marketing,utility,authentication\n"
            "IN,1,0.5,0.5\n"
            "BR,2,1.25,1.25\n"
            "*,4,2,2\n";
        Sandbox sandbox({"--recategorize", "thank_you=MARKETING@1"});
        // Two sends at once, then one every 4 s, and the list read again after 10 s: 1 to 5 of the 6
        // rows are sent before the read that sees the change (the 6th could not leave before 16 s).
        CampaignFixture f(sandbox, k_csv,
                          "pricing:\n  rate_card: rates.csv\n  budget: 6.5\n"
                          "rate:\n  per_second: 0.25\n  burst: 1\n  concurrency: 1\n",
                          k_thank_you + "  recheck: 10s\n");
        f.dir.write("rates.csv", card);
        auto first = f.wacamp({"run", f.campaign.string(), "--yes"});
        CAPTURE(first.err);
        CHECK(first.exit_code == 3);
        CHECK(contains(first.err, "template \"thank_you\" (_id "));
        CHECK(contains(first.err, "is MARKETING in the template list now, not UTILITY"));
        CHECK(contains(first.err, "what is left is now about"));
        const int sent = template_sends(sandbox);
        CHECK(sent >= 1);
        CHECK(sent <= 5);
        const auto records = f.records();
        REQUIRE_FALSE(records.empty());
        CHECK(records.back()["event"] == "end");
        CHECK(records.back()["reason"] == "template_changed");
        // The list was read again while sending: a GET beside the sends, no attempt line of its own.
        int reads = 0;
        for (const auto& entry : sandbox.journal()) {
            reads +=
                entry.value("method", "") == "GET" && entry.value("path", "").find("template") != std::string::npos;
        }
        CHECK(reads >= 3);  // the check before the question, the warm-up's, then the recheck
        int attempts = 0;
        for (const auto& r : records) {
            attempts += r.value("event", "") == "attempt";
        }
        CHECK(attempts == sent);
        // What was spent at UTILITY and the rest at MARKETING pass the file's budget: refused up front.
        auto refused = f.wacamp({"resume", f.log.string()});
        CAPTURE(refused.err);
        CHECK(refused.exit_code == 2);
        CHECK(contains(refused.err, "6.50 USD"));
        CHECK(template_sends(sandbox) == sent);
        // A raised budget sends the rest, each row once in all.
        auto resumed = f.wacamp({"resume", f.log.string(), "--budget", "20"});
        CAPTURE(resumed.err);
        CHECK(resumed.exit_code == 0);
        CHECK(template_sends(sandbox) == 6);
        check_each_sent_once(sandbox);
        CHECK(result_of(f, 6)["price"] == 2.0);  // BR at MARKETING
    }

    TEST_CASE("message.recheck: a duration of at least 10s, or off, on a template campaign only") {
        Sandbox sandbox;
        CampaignFixture quick(sandbox, k_csv, "", k_thank_you + "  recheck: 5s\n");
        auto q = quick.wacamp({"validate", quick.campaign.string(), "--offline"});
        CHECK(q.exit_code == 2);
        CHECK(contains(q.err, "message.recheck: must be between 10s and 24h, or off, got 5s"));
        CampaignFixture off(sandbox, k_csv, "", k_thank_you + "  recheck: off\n");
        CHECK(off.wacamp({"validate", off.campaign.string(), "--offline"}).exit_code == 0);
        CampaignFixture text(sandbox, k_csv, "", "message:\n  type: text\n  text: hi\n  recheck: 10m\n");
        auto t = text.wacamp({"validate", text.campaign.string(), "--offline"});
        CHECK(t.exit_code == 2);
        CHECK(contains(t.err, "message.recheck: only applies to type template"));
    }

    TEST_CASE("message.category is a template campaign's, one of Meta's three categories") {
        Sandbox sandbox;
        CampaignFixture text(sandbox, k_csv, "", "message:\n  type: text\n  text: hi\n  category: MARKETING\n");
        auto t = text.wacamp({"validate", text.campaign.string(), "--offline"});
        CHECK(t.exit_code == 2);
        CHECK(contains(t.err, "message.category: only applies to type template"));
        CampaignFixture bad(sandbox, k_csv, "", k_thank_you + "  category: PROMO\n");
        auto b = bad.wacamp({"validate", bad.campaign.string(), "--offline"});
        CHECK(b.exit_code == 2);
        CHECK(contains(b.err, "message.category: expected MARKETING, UTILITY or AUTHENTICATION, got \"PROMO\""));
        // Offline, the pinned category prices the plan.
        CampaignFixture pinned(sandbox, k_csv, "pricing:\n  rate_card: rates.csv\n",
                               k_thank_you + "  category: UTILITY\n");
        pinned.dir.write("rates.csv", k_card);
        auto p = pinned.wacamp({"validate", pinned.campaign.string(), "--offline"});
        CAPTURE(p.out);
        CHECK(p.exit_code == 0);
        CHECK(contains(p.out, "cost: about 6.00 USD for 6 UTILITY messages"));
    }
}

TEST_SUITE("e2e: the campaign's budget") {
    TEST_CASE("on a terminal, the question shows the estimate for what is left and what was spent so far") {
        CostFixture c;
        auto asked = on_terminal(c.f, {"run", c.f.campaign.string()}, "n\n");
        CAPTURE(asked.out);
        CHECK(asked.exit_code == 3);  // declined
        CHECK(contains(asked.out, "cost: about 6.00 USD for 6 UTILITY messages"));
        CHECK(contains(asked.out, "Send 6 messages? [y/N]"));
        CHECK(template_sends(c.sandbox) == 0);
        REQUIRE(c.f.wacamp({"run", c.f.campaign.string(), "--yes", "--limit", "3"}).exit_code == 0);
        auto again = on_terminal(c.f, {"run", c.f.campaign.string()}, "n\n");
        CAPTURE(again.out);
        CHECK(contains(again.out, "cost: about 3.75 USD for 3 UTILITY messages"));
        CHECK(contains(again.out, "spent so far: about 2.25 USD"));
        CHECK(template_sends(c.sandbox) == 3);
    }
}

TEST_SUITE("e2e: the campaign's budget") {
    TEST_CASE("a request in flight when the process died, and a row sent without a price, count as spent") {
        CostFixture c;
        // The first three rows: IN 0.5, IN 0.5, BR 1.25.
        REQUIRE(c.f.wacamp({"run", c.f.campaign.string(), "--yes", "--limit", "3"}).exit_code == 0);
        // As a kill -9 between row 1's attempt and its result, and a row 2 sent before prices, leave it.
        std::string kept;
        for (const auto& r : c.f.records()) {
            if (r.value("event", "") == "result" && r["row"] == 1) {
                continue;
            }
            auto line = r;
            if (line.value("event", "") == "result" && line["row"] == 2) {
                line.erase("price");
            }
            kept += line.dump() + "\n";
        }
        std::ofstream(c.f.log, std::ios::trunc) << kept;
        auto refused = c.f.wacamp({"resume", c.f.log.string(), "--budget", "5"});
        CAPTURE(refused.err);
        CHECK(refused.exit_code == 2);
        CHECK(contains(refused.err,
                       "2.25 USD already spent (of which 1 sent row(s) without a price and 1 of unknown "
                       "outcome, at today's card)"));
        CHECK(template_sends(c.sandbox) == 3);
    }

    TEST_CASE("a budget that is not a positive amount is a problem of the campaign file; nothing is sent") {
        for (const std::string bad : {"-1", "0", "abc"}) {
            CAPTURE(bad);
            Sandbox sandbox;
            CampaignFixture f(sandbox, k_csv, "pricing:\n  rate_card: rates.csv\n  budget: " + bad + "\n", k_thank_you);
            f.dir.write("rates.csv", k_card);
            auto r = f.wacamp({"run", f.campaign.string(), "--yes"});
            CAPTURE(r.err);
            CHECK(r.exit_code == 2);
            CHECK(contains(r.err, "pricing.budget"));
            CHECK(template_sends(sandbox) == 0);
        }
        CostFixture c;
        auto flag = c.f.wacamp({"run", c.f.campaign.string(), "--yes", "--budget", "-3"});
        CHECK(flag.exit_code == 2);
        CHECK(template_sends(c.sandbox) == 0);
    }
}
