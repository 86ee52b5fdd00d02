// A small JSON Schema checker for the subset docs/*.schema.json use: type, required, properties,
// additionalProperties, items, enum, minimum, exclusiveMinimum, maximum, minItems, maxItems, oneOf, boolean schemas,
// $ref to #/$defs (SchemaCheckerKnowsEveryKeywordTheSchemasUse keeps the list whole). Enough to hold the report, bench
// and quality documents to their schemas without another dependency. Returns one message per violation, each with its
// JSON pointer.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpublur::testing {

inline bool json_type_is(const nlohmann::json& v, const std::string& t) {
  if (t == "object") return v.is_object();
  if (t == "array") return v.is_array();
  if (t == "string") return v.is_string();
  if (t == "boolean") return v.is_boolean();
  if (t == "null") return v.is_null();
  if (t == "integer") return v.is_number_integer();
  if (t == "number") return v.is_number();
  return false;
}

inline void schema_check(const nlohmann::json& root, const nlohmann::json& schema, const nlohmann::json& v,
                         const std::string& at, std::vector<std::string>& errors) {
  if (schema.is_boolean()) {
    if (!schema.get<bool>()) errors.push_back(at + ": not allowed");
    return;
  }
  if (schema.contains("$ref")) {
    const std::string ref = schema["$ref"];
    const std::string prefix = "#/$defs/";
    if (ref.rfind(prefix, 0) != 0 || !root["$defs"].contains(ref.substr(prefix.size()))) {
      errors.push_back(at + ": unresolvable $ref " + ref);
      return;
    }
    schema_check(root, root["$defs"][ref.substr(prefix.size())], v, at, errors);
    return;
  }
  if (schema.contains("type")) {
    bool ok = false;
    if (schema["type"].is_array()) {
      for (const auto& t : schema["type"]) ok = ok || json_type_is(v, t);
    } else {
      ok = json_type_is(v, schema["type"]);
    }
    if (!ok) {
      errors.push_back(at + ": expected type " + schema["type"].dump() + ", got " + v.dump());
      return;
    }
  }
  if (schema.contains("enum")) {
    bool found = false;
    for (const auto& e : schema["enum"]) found = found || e == v;
    if (!found) errors.push_back(at + ": " + v.dump() + " not in " + schema["enum"].dump());
  }
  // quality's document is a measurement or a failure, its images and mean each of two shapes: exactly one must fit.
  if (schema.contains("oneOf")) {
    int fits = 0;
    std::string why;
    for (size_t i = 0; i < schema["oneOf"].size(); ++i) {
      std::vector<std::string> branch;
      schema_check(root, schema["oneOf"][i], v, at, branch);
      if (branch.empty())
        ++fits;
      else
        why += " [" + std::to_string(i) + "] " + branch.front();
    }
    if (fits != 1) errors.push_back(at + ": fits " + std::to_string(fits) + " of oneOf's schemas, not 1;" + why);
  }
  if (schema.contains("minimum") && v.is_number() && v.get<double>() < schema["minimum"].get<double>())
    errors.push_back(at + ": " + v.dump() + " below minimum " + schema["minimum"].dump());
  if (schema.contains("exclusiveMinimum") && v.is_number() &&
      !(v.get<double>() > schema["exclusiveMinimum"].get<double>()))
    errors.push_back(at + ": " + v.dump() + " not above " + schema["exclusiveMinimum"].dump());
  if (schema.contains("maximum") && v.is_number() && v.get<double>() > schema["maximum"].get<double>())
    errors.push_back(at + ": " + v.dump() + " above maximum " + schema["maximum"].dump());
  if (schema.contains("minItems") && v.is_array() && v.size() < schema["minItems"].get<size_t>())
    errors.push_back(at + ": fewer items than " + schema["minItems"].dump());
  if (schema.contains("maxItems") && v.is_array() && v.size() > schema["maxItems"].get<size_t>())
    errors.push_back(at + ": more items than " + schema["maxItems"].dump());
  if (v.is_object()) {
    if (schema.contains("required"))
      for (const auto& k : schema["required"])
        if (!v.contains(k.get<std::string>())) errors.push_back(at + ": missing required key " + k.dump());
    const nlohmann::json props = schema.value("properties", nlohmann::json::object());
    for (const auto& [k, item] : v.items()) {
      if (props.contains(k))
        schema_check(root, props[k], item, at + "/" + k, errors);
      else if (schema.contains("additionalProperties"))
        schema_check(root, schema["additionalProperties"], item, at + "/" + k, errors);
    }
  }
  if (v.is_array() && schema.contains("items"))
    for (size_t i = 0; i < v.size(); ++i) schema_check(root, schema["items"], v[i], at + "/" + std::to_string(i), errors);
}

inline std::vector<std::string> schema_errors(const nlohmann::json& schema, const nlohmann::json& doc) {
  std::vector<std::string> errors;
  schema_check(schema, schema, doc, "", errors);
  return errors;
}

}  // namespace gpublur::testing
