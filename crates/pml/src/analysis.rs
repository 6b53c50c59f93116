//! One analysis per program: what a run, a check and the gateway read of a program (its
//! structure, its instrumented text, its semantic hash, the servers and capabilities it names,
//! and, once its servers have listed their tools, the program ready to run) come from one
//! parse of its JavaScript.
//!
//! The structure is built once, without tool schemas or approval rules (what the hash reads);
//! [`Analysis::program`] adds what the servers' catalog and the permission config say to a
//! copy of it, as building with them would.

use std::collections::BTreeSet;

use pml_dag::DagOptions;
use pml_executor::Program;
use pml_optimizer::OptimizerOptions;
use pml_structure::{
    BuildOptions, Dialect, Instrumented, NodeKind, Permissions, Severity, StaticStructure,
    ToolCatalog,
};

/// The structure of a program in `dialect` as a run builds it (from its JavaScript), from one
/// parse, without instrumenting it: for what reads a structure only (a hash, a view, the
/// capabilities a stored program calls). `Err` when TypeScript cannot be made JavaScript.
pub fn structure_of(
    text: &str,
    dialect: Dialect,
) -> Result<StaticStructure, pml_structure::StripError> {
    let options = BuildOptions {
        dialect: Dialect::JavaScript,
        ..Default::default()
    };
    Ok(match dialect {
        Dialect::TypeScript => pml_structure::build_typescript(text, &options)?.1.structure,
        Dialect::JavaScript => pml_structure::build_structure(text, &options).structure,
    })
}

/// A program's JavaScript analysed once.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// The program as JavaScript (TypeScript types blanked out, positions kept).
    pub javascript: String,
    /// Its structure, without the catalog's `provides` edges or approval lists.
    pub structure: StaticStructure,
    /// The program instrumented with a probe object named with a secret of this analysis
    /// (`None` when it does not parse).
    pub instrumented: Option<Instrumented>,
    /// What the parse and the walk took.
    pub timings: pml_structure::Timings,
}

impl Analysis {
    /// `javascript` parsed and built once, instrumented with a fresh secret.
    pub fn of(javascript: String) -> Analysis {
        let built = pml_structure::build_structure(&javascript, &Self::options());
        Analysis {
            javascript,
            structure: built.structure,
            instrumented: built.instrumented,
            timings: built.timings,
        }
    }

    /// A program in `dialect`, parsed once: TypeScript's types blanked out from the same
    /// syntax tree the structure is built from. `Err` when TypeScript cannot be made
    /// JavaScript (it does not parse, or needs generated code pml does not make: decorators,
    /// `accessor` fields).
    pub fn of_source(text: &str, dialect: Dialect) -> Result<Analysis, pml_structure::StripError> {
        match dialect {
            Dialect::JavaScript => Ok(Self::of(text.to_owned())),
            Dialect::TypeScript => {
                let (javascript, built) = pml_structure::build_typescript(text, &Self::options())?;
                Ok(Analysis {
                    javascript,
                    structure: built.structure,
                    instrumented: built.instrumented,
                    timings: built.timings,
                })
            }
        }
    }

    fn options() -> BuildOptions {
        BuildOptions {
            dialect: Dialect::JavaScript,
            instrument: true,
            probe_secret: Some(crate::run::probe_secret()),
            ..Default::default()
        }
    }

    /// The first error the program has (it then has no structure and cannot run).
    pub fn first_error(&self) -> Option<&pml_structure::Diagnostic> {
        (self.structure.diagnostics.iter()).find(|d| d.severity == Severity::Error)
    }

    /// The servers the program calls tools of (those it names; not one it computes at run
    /// time, which starts when the call is made).
    pub fn servers(&self) -> BTreeSet<String> {
        (self.structure.nodes.iter())
            .filter(|n| n.is_mcp())
            .filter_map(|n| Some(n.tool.as_deref()?.split_once(':')?.0.to_owned()))
            .filter(|server| server != pml_structure::DYNAMIC_NAME)
            .collect()
    }

    /// Whether the program calls stored capabilities (`capabilities.NAME(...)`).
    pub fn calls_capabilities(&self) -> bool {
        (self.structure.nodes.iter()).any(|n| n.kind == NodeKind::Capability)
    }

    /// The program's semantic hash (`None` when it has errors): what `pml save` keys it by.
    pub fn hash(&self) -> Option<String> {
        crate::semantic_hash(&self.structure).ok()
    }

    /// The program ready to run: its structure with what `catalog` and `permissions` add,
    /// its logical DAG, its physical DAG (`optimize`d, or the logical one) and its
    /// instrumented text.
    pub fn program(
        &self,
        catalog: &ToolCatalog,
        permissions: Option<&Permissions>,
        optimize: bool,
    ) -> Program {
        let mut structure = self.structure.clone();
        pml_structure::apply_catalog(&mut structure, catalog);
        if let Some(permissions) = permissions {
            pml_structure::apply_permissions(&mut structure, permissions);
        }
        let logical = crate::to_dag(
            &structure,
            &DagOptions {
                catalog: Some(catalog.clone()),
            },
        );
        let physical = match optimize {
            true => crate::optimize(&logical, &OptimizerOptions::default()).physical,
            false => logical.clone(),
        };
        Program {
            source: self.javascript.clone(),
            structure,
            logical,
            physical,
            instrumented: self.instrumented.clone(),
        }
    }
}
