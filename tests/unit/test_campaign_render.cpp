#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "campaign/render.hpp"

using campaign::Template;
using Fields = std::vector<std::string>;

namespace {

const Fields k_header = {"name", "phone", "date"};

std::string render(const std::string& text, const Fields& fields) {
    auto parsed = Template::parse(text);
    REQUIRE(parsed.ok());
    auto bound = parsed->bind(k_header);
    REQUIRE(bound.ok());
    auto out = bound->render(fields);
    REQUIRE(out.ok());
    return *out;
}

std::string parse_error(const std::string& text) {
    auto parsed = Template::parse(text);
    REQUIRE_FALSE(parsed.ok());
    return parsed.error().message;
}

}  // namespace

TEST_SUITE("campaign::Template") {
    TEST_CASE("replaces placeholders with the row's values") {
        CHECK(render("Hi {{name}}, on {{date}}.", {"Asha", "91", "Monday"}) == "Hi Asha, on Monday.");
        CHECK(render("{{name}}{{name}}", {"ab", "", ""}) == "abab");
    }
    TEST_CASE("text without placeholders comes back as it is") {
        CHECK(render("Hello } { there", {"", "", ""}) == "Hello } { there");
        CHECK(render("", {"", "", ""}) == "");
    }
    TEST_CASE("whitespace around the name is allowed") {
        CHECK(render("Hi {{ name }}!", {"Asha", "", ""}) == "Hi Asha!");
    }
    TEST_CASE("a default fills an empty value") {
        CHECK(render("on {{date|soon}}", {"", "", ""}) == "on soon");
        CHECK(render("on {{ date | next week }}", {"", "", ""}) == "on next week");
        CHECK(render("on {{date|soon}}", {"", "", "Friday"}) == "on Friday");
    }
    TEST_CASE("an empty default is allowed") {
        CHECK(render("Hi{{date|}}!", {"", "", ""}) == "Hi!");
    }
    TEST_CASE("a value of only whitespace counts as empty") {
        CHECK(render("on {{date|soon}}", {"", "", "  "}) == "on soon");
    }
    TEST_CASE("values are inserted without escaping") {
        CHECK(render("{{name}}", {"\"Asha\" <b>&\n", "", ""}) == "\"Asha\" <b>&\n");
        CHECK(render("{{name}}", {"{{date}}", "", "x"}) == "{{date}}");
    }
    TEST_CASE("an unclosed placeholder is a parse error saying where") {
        CHECK(parse_error("Hi {{name") == "\"{{\" at character 4 has no closing \"}}\"");
        CHECK(parse_error("é {{a {{b}}") == "\"{{\" at character 3 has no closing \"}}\"");
    }
    TEST_CASE("an empty name is a parse error") {
        CHECK(parse_error("Hi {{}}") == "placeholder {{}} at character 4 has no name");
        CHECK(parse_error("Hi {{ |x}}") == "placeholder {{ |x}} at character 4 has no name");
    }
    TEST_CASE("binding fails on a name that is no column, listing the columns") {
        auto t = Template::parse("on {{when}}");
        REQUIRE(t.ok());
        auto bound = t->bind(k_header);
        REQUIRE_FALSE(bound.ok());
        CHECK(bound.error().message == "placeholder {{when}} names no column; columns are: name, phone, date");
    }
    TEST_CASE("binding suggests a column that differs only in case") {
        auto t = Template::parse("{{Name}}");
        REQUIRE(t.ok());
        auto bound = t->bind(k_header);
        REQUIRE_FALSE(bound.ok());
        CHECK(bound.error().message ==
              "placeholder {{Name}} names no column (did you mean "
              "\"name\"?); columns are: name, phone, date");
    }
    TEST_CASE("an empty value without a default fails the row") {
        auto t = Template::parse("on {{date}}");
        REQUIRE(t.ok());
        auto bound = t->bind(k_header);
        REQUIRE(bound.ok());
        auto out = bound->render({"Asha", "91", ""});
        REQUIRE_FALSE(out.ok());
        CHECK(out.error().message == "column \"date\" is empty and {{date}} has no default");
    }
    TEST_CASE("render_into reuses the output string") {
        auto t = Template::parse("Hi {{name}}");
        REQUIRE(t.ok());
        auto bound = t->bind(k_header);
        REQUIRE(bound.ok());
        std::string out = "old content";
        REQUIRE(bound->render_into({"Ravi", "", ""}, out).ok());
        CHECK(out == "Hi Ravi");
    }
}
