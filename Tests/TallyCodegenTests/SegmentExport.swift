/// A Segment Protocols export (the Public API's rules) with what a generator must handle: nested
/// objects and arrays, enums of strings and numbers, and names that are not Swift identifiers or
/// collide once converted.
enum SegmentExport {
    static let plan = #"""
        {"rules": [
          {"type": "TRACK", "key": "Order Completed", "version": 2,
           "jsonSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
             "description": "An order was placed.",
             "properties": {"context": {}, "traits": {}, "properties": {"type": "object", "properties": {
               "order_id": {"type": "string", "description": "The order's id."},
               "total": {"type": "number", "minimum": 0},
               "coupon": {"type": ["string", "null"]},
               "products": {"type": "array", "items": {"type": "object", "properties": {
                 "product_id": {"type": "string"}, "price": {"type": "number"}, "quantity": {"type": "integer"},
                 "tags": {"type": "array", "items": {"type": "string"}}}, "required": ["product_id"]}},
               "shipping": {"type": "object", "properties": {
                 "method": {"enum": ["ground", "2-day", "2_day", "overnight"]},
                 "address": {"type": "object", "properties": {"city": {"type": "string"}}}}},
               "class": {"type": "string"},
               "3d_secure": {"type": "boolean"},
               "$discount": {"type": "number"},
               "café": {"type": "string"},
               "caf": {"type": "string"}},
              "required": ["order_id", "total", "products"]}}}},
          {"type": "TRACK", "key": "Product Viewed", "version": 1,
           "jsonSchema": {"type": "object", "properties": {"context": {}, "traits": {}, "properties": {
             "type": "object", "properties": {
               "variant": {"type": "object", "properties": {"size": {"enum": ["S", "M", "L"]}}},
               "rating": {"type": "integer", "enum": [1, 2, 3, 4, 5]},
               "score": {"enum": [0.5, 1, 1.5]},
               "method": {"type": "string", "enum": ["search", "browse"]}}}}}},
          {"type": "TRACK", "key": "name", "version": 1,
           "jsonSchema": {"type": "object", "properties": {"context": {}, "traits": {}, "properties": {
             "type": "object", "properties": {"default": {"type": "string"}}, "required": ["default"]}}}}
        ]}
        """#
}
