//! The launcher's OpenAPI document, assembled here where its routes are:
//! each design's order routes under `/api/NAME` (operation ids and tags
//! of its own), the combined step stream, the workshop's and the outside
//! services' routes.

use lab_core::OrderServer;
use lab_core::openapi::{combined_steps_paths, describe, order_server_paths};
use onetrip_server::OneTripServer;
use utoipa::openapi::path::Operation;
use utoipa::openapi::{self as oa};

/// The launcher's document: each of `servers` under `/api/NAME`, their
/// combined step stream at `/api/steps`, and `/api/openapi.json`.
pub fn lab_document(servers: &[&str]) -> oa::OpenApi {
    let mut document = oa::OpenApiBuilder::new()
        .build()
        .nest("/api", combined_steps_paths());
    for name in servers {
        let mut server = order_server_paths();
        for item in server.paths.paths.values_mut() {
            for operation in operations_of(item) {
                // One operation id per operation of the whole document.
                let id = operation.operation_id.take().unwrap_or_default();
                operation.operation_id = Some(format!("{name}_{id}"));
                operation.tags = Some(vec![(*name).to_owned()]);
            }
        }
        if *name == OneTripServer::NAME {
            only_without_side_effects(&mut server);
        }
        document = document.nest(format!("/api/{name}"), server);
    }
    describe(
        &mut document,
        &format!(
            "Idempotency Lab: the {} order servers side by side",
            servers.join(", ")
        ),
    );
    document
}

/// Narrows `Lab-Side-Effects` on the one-trip server's routes to `none`:
/// its work is one statement, and it refuses `charge-and-email` (400
/// `/problems/no-calls-outside`), so the document must not offer it.
fn only_without_side_effects(server: &mut oa::OpenApi) {
    for item in server.paths.paths.values_mut() {
        for operation in operations_of(item) {
            for parameter in operation.parameters.iter_mut().flatten() {
                if parameter.name == "Lab-Side-Effects" {
                    let none_only = oa::ObjectBuilder::new()
                        .schema_type(oa::schema::Type::String)
                        .enum_values(Some(["none"]))
                        .build();
                    parameter.schema = Some(none_only.into());
                    parameter.description = Some(
                        "Only `none` here: this server makes no call outside its one statement"
                            .into(),
                    );
                }
            }
        }
    }
}

/// The operations of a path item, whatever their methods.
fn operations_of(item: &mut oa::PathItem) -> impl Iterator<Item = &mut Operation> {
    [
        item.get.as_mut(),
        item.put.as_mut(),
        item.post.as_mut(),
        item.delete.as_mut(),
        item.options.as_mut(),
        item.head.as_mut(),
        item.patch.as_mut(),
        item.trace.as_mut(),
    ]
    .into_iter()
    .flatten()
}

#[cfg(test)]
mod tests {
    use lab_core::openapi::methods;

    use super::*;

    #[test]
    fn the_launcher_documents_each_server_under_its_name_with_ids_of_its_own() {
        let document = lab_document(&["naive", "safe"]);
        let found = methods(&document);
        for expected in [
            "post /api/naive/orders",
            "post /api/safe/orders",
            "get /api/safe/steps",
            "get /api/steps",
            "get /api/openapi.json",
        ] {
            assert!(
                found.contains(&expected.to_owned()),
                "{expected} in {found:?}"
            );
        }
        let json = serde_json::to_value(&document).unwrap();
        assert_eq!(
            json["paths"]["/api/safe/orders"]["post"]["operationId"],
            "safe_create_order"
        );
        assert_eq!(
            json["paths"]["/api/naive/orders"]["get"]["tags"][0],
            "naive"
        );
        assert!(json["components"]["schemas"]["Order"].is_object());
        assert_eq!(
            json["components"]["securitySchemes"]["teacher"]["scheme"],
            "bearer"
        );
    }

    #[test]
    fn the_one_trip_server_is_documented_without_side_effects_and_the_others_with() {
        let json = serde_json::to_value(lab_document(&["safe", "onetrip"])).unwrap();
        let side_effects = |server: &str| {
            json["paths"][format!("/api/{server}/orders")]["post"]["parameters"]
                .as_array()
                .unwrap()
                .iter()
                .find(|parameter| parameter["name"] == "Lab-Side-Effects")
                .cloned()
                .unwrap()
        };
        assert_eq!(
            side_effects("onetrip")["schema"]["enum"],
            serde_json::json!(["none"])
        );
        assert_ne!(
            side_effects("safe")["schema"],
            side_effects("onetrip")["schema"]
        );
    }
}
