/// Small Segment Protocols exports, one per shape, written after the real ones (see the readers'
/// docs): the same shop plan each time, with what each shape adds around it.
enum SegmentImportFixtures {
    /// `Order Completed` 1: scalar properties only.
    static let orderCompletedV1 = #"""
        {"type": "object", "properties": {
          "order_id": {"type": "string", "description": "Order/transaction ID"},
          "total": {"type": "number", "minimum": 0},
          "coupon": {"type": ["string", "null"]}},
         "required": ["order_id", "total"]}
        """#

    /// `Order Completed` 2: a `products` array of objects.
    static let orderCompletedV2 = #"""
        {"type": "object", "properties": {
          "order_id": {"type": "string"},
          "total": {"type": "number", "minimum": 0},
          "products": {"type": "array", "minItems": 1, "items": {"type": "object", "properties": {
            "product_id": {"type": "string"}, "price": {"type": "number"},
            "quantity": {"type": "integer", "minimum": 1}}, "required": ["product_id"]}}},
         "required": ["order_id", "total", "products"]}
        """#

    /// `Product Viewed`: a nested object with an `enum` without `type`.
    static let productViewed = #"""
        {"type": "object", "properties": {
          "product_id": {"type": "string"},
          "variant": {"type": "object", "properties": {
            "color": {"type": "string"}, "size": {"enum": ["S", "M", "L"]}}, "required": ["color"]}},
         "required": ["product_id"]}
        """#

    /// The Public API's `GET /tracking-plans/{id}/rules` body.
    static let publicAPI = #"""
        {"data": {"rules": [
          {"type": "COMMON", "key": null, "version": 1, "createdAt": "2024-03-01T10:00:00.000Z",
           "jsonSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
             "properties": {"context": {"type": "object", "properties": {"userAgent": {"type": "string"}},
                                        "required": ["userAgent"]},
                            "properties": {}, "traits": {}},
             "required": ["context"]}},
          {"type": "IDENTIFY", "version": 1,
           "jsonSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
             "properties": {"context": {}, "properties": {}, "traits": {"type": "object"}}}},
          {"type": "GROUP", "version": 1,
           "jsonSchema": {"type": "object", "properties": {"context": {}, "properties": {},
             "traits": {"type": "object", "properties": {"plan": {"type": "string"}}, "required": ["plan"]}}}},
          {"type": "PAGE", "key": "Home", "version": 1,
           "jsonSchema": {"type": "object", "properties": {"context": {}, "traits": {},
             "properties": {"type": "object", "properties": {"path": {"type": "string"}}}}}},
          {"type": "TRACK", "key": "Order Completed", "version": 1,
           "jsonSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "labels": {},
             "description": "An order was placed.",
             "properties": {"context": {}, "traits": {}, "properties": \#(orderCompletedV1)}}},
          {"type": "TRACK", "key": "Order Completed", "version": 2, "updatedAt": "2024-05-02T08:00:00.000Z",
           "jsonSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "labels": {},
             "description": "An order was placed, with its products.",
             "properties": {"context": {}, "traits": {}, "properties": \#(orderCompletedV2)}}},
          {"type": "TRACK", "key": "Product Viewed", "version": 1,
           "jsonSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
             "properties": {"context": {"type": "object", "properties": {"page": {"type": "object",
                                        "required": ["url"]}}},
                            "traits": {}, "properties": \#(productViewed)}}},
          {"type": "TRACK", "key": "Signed Up", "version": 1,
           "jsonSchema": {"properties": {"context": {}, "properties": {}, "traits": {}}}},
          {"type": "TRACK", "key": "Checkout Started", "version": 0, "jsonSchema": {"type": "object"}}
        ], "pagination": {"current": "MA==", "next": null, "totalEntries": 9}}}
        """#

    /// The Config API's Get Tracking Plan body: draft-04, the message's `required` inside
    /// `properties` as Segment writes it, `total` with a draft-04 exclusive minimum.
    static let configAPI = #"""
        {"name": "workspaces/kicks/tracking-plans/rs_1Ab2Cd3Ef4", "display_name": "Kicks App",
         "rules": {
          "events": [
            {"name": "Order Completed", "description": "An order was placed.", "version": 1,
             "rules": {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
               "properties": {"context": {}, "traits": {}, "required": ["properties"],
                 "properties": {"type": "object", "required": ["order_id", "total"], "properties": {
                   "order_id": {"type": ["string"]},
                   "total": {"type": ["number"], "minimum": 0, "exclusiveMinimum": true}}}}}},
            {"name": "Order Completed", "description": "An order was placed, with its products.", "version": 2,
             "rules": {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
               "properties": {"context": {}, "traits": {}, "properties": \#(orderCompletedV2)}}},
            {"name": "Product Viewed", "version": 1,
             "rules": {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
               "properties": {"context": {}, "traits": {}, "properties": \#(productViewed)}}},
            {"description": "An event without a name.", "version": 1, "rules": {"type": "object"}}
          ],
          "global": {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
            "properties": {"context": {"required": ["library"], "type": "object"}, "traits": {}, "properties": {}}},
          "identify": {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
            "properties": {"traits": {"type": "object", "properties": {"name": {"type": ["string"]}},
                                      "required": ["name"]}, "properties": {}, "context": {}}},
          "group": {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
            "properties": {"context": {}, "properties": {}, "traits": {}}},
          "identify_traits": [], "group_traits": []},
         "create_time": "2019-02-05T01:21:25Z", "update_time": "2019-02-05T01:21:25Z"}
        """#

    /// A 2018 local plan file, as typewriter read it with `--inputPath`: `id` annotations, no
    /// versions, and one event whose rules describe only its properties (which is refused).
    static let localPlan = #"""
        {"name": "Slothgram", "events": [
          {"name": "Feed Viewed",
           "rules": {"$schema": "http://json-schema.org/draft-04/schema#", "title": "Feed Viewed",
             "description": "A feed was viewed.", "type": "object",
             "properties": {"context": {"id": "/properties/context"}, "traits": {"id": "/properties/traits"},
               "properties": {"id": "/properties/properties", "type": "object",
                 "properties": {"profile_id": {"id": "/properties/properties/properties/profile_id",
                                               "type": "string"}},
                 "required": ["profile_id"]}},
             "required": ["properties"]}},
          {"name": "Product Viewed", "description": "A product page was viewed.",
           "rules": {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
             "properties": {"context": {}, "traits": {}, "properties": \#(productViewed)}}},
          {"name": "Order Completed",
           "rules": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
             "properties": {"context": {}, "traits": {}, "properties": \#(orderCompletedV2)},
             "required": ["properties"]}},
          {"name": "Photo Liked", "rules": {"type": "object", "properties": {"photo_id": {"type": "string"}}}}
        ], "group_traits": null, "identify_traits": []}
        """#
}
