//! `Model` → `SystemGraph`: a petgraph graph whose vertices are DOF carriers (ground, base,
//! masses, beam nodes, substructures, bodies) and whose edges are elements.
//!
//! The graph answers structural questions before any matrix exists: which parts float
//! (no stiffness path to a support, hence rigid-body modes) and which masses nothing touches.

use super::flat::{ElementKind, Model, NodeId, NodeKind, BASE, GROUND};
use super::system::Warning;
use petgraph::graph::{NodeIndex, UnGraph};
use petgraph::unionfind::UnionFind;

/// Vertices carry the model's `NodeId`, edges the index of the element in `Model::elements`.
pub(crate) struct SystemGraph {
    graph: UnGraph<NodeId, usize>,
}

impl SystemGraph {
    pub(crate) fn build(model: &Model) -> SystemGraph {
        let mut graph = UnGraph::with_capacity(model.nodes.len(), model.elements.len());
        for i in 0..model.nodes.len() {
            graph.add_node(NodeId(i));
        }
        for (i, e) in model.elements.iter().enumerate() {
            graph.add_edge(NodeIndex::new(e.a.node.0), NodeIndex::new(e.b.node.0), i);
        }
        SystemGraph { graph }
    }

    /// Warnings for subsystems with no stiffness path to `ground` or `base` (contacts open):
    /// each such part has rigid-body modes at ω = 0.
    pub(crate) fn floating_warnings(&self, model: &Model) -> Vec<Warning> {
        let n = self.graph.node_count();
        let mut uf = UnionFind::<usize>::new(n);
        for e in self.graph.edge_indices() {
            let el = &model.elements[self.graph[e]];
            let stiff = match &el.kind {
                ElementKind::Spring { k, k2, k3 } => *k != 0.0 || *k2 != 0.0 || *k3 != 0.0,
                ElementKind::Beam(_) | ElementKind::Joint(_) => true,
                ElementKind::Damper { .. }
                | ElementKind::Gap(_)
                | ElementKind::Friction(_)
                | ElementKind::Matrices(_) => false,
            };
            if stiff {
                if let Some((a, b)) = self.graph.edge_endpoints(e) {
                    uf.union(a.index(), b.index());
                }
            }
        }
        uf.union(GROUND.0, BASE.0);
        let mut groups: std::collections::BTreeMap<usize, Vec<&str>> = Default::default();
        for (i, node) in model.nodes.iter().enumerate() {
            let held = !node.fixed.is_empty();
            let floating_kind = matches!(
                node.kind,
                NodeKind::Mass | NodeKind::BeamNode | NodeKind::Body(_)
            );
            if floating_kind && !held && !uf.equiv(i, GROUND.0) {
                groups.entry(uf.find(i)).or_default().push(&node.name);
            }
        }
        // A group is floating only if none of its nodes is held by a boundary condition.
        let held_roots: Vec<usize> = model
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| !n.fixed.is_empty())
            .map(|(i, _)| uf.find(i))
            .collect();
        groups
            .into_iter()
            .filter(|(root, _)| !held_roots.contains(root))
            .map(|(_, names)| {
                let shown: Vec<&str> = names.iter().copied().take(6).collect();
                let more = if names.len() > 6 { format!(" and {} more", names.len() - 6) } else { String::new() };
                Warning {
                    code: "nsd::model::floating",
                    message: format!(
                        "floating subsystem {{{}{more}}}: no stiffness path to ground or base with contacts open, so it has rigid-body modes (ω = 0)",
                        shown.join(", ")
                    ),
                }
            })
            .collect()
    }
}
