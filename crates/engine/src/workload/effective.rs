//! The value in effect of every core workload property, defaults included, as
//! recorded in the result document (so a result says exactly what ran).

use super::properties::{CoreConfig, LengthDistribution, RequestDistribution};

impl CoreConfig {
    /// The value in effect of every core workload property (defaults included),
    /// for the result document.
    pub fn effective(&self) -> Vec<(&'static str, String)> {
        let length = |d: LengthDistribution| match d {
            LengthDistribution::Constant => "constant",
            LengthDistribution::Uniform => "uniform",
            LengthDistribution::Zipfian => "zipfian",
        };
        let request = match self.request_distribution {
            RequestDistribution::Uniform => "uniform",
            RequestDistribution::Zipfian => "zipfian",
            RequestDistribution::Latest => "latest",
            RequestDistribution::Hotspot => "hotspot",
            RequestDistribution::Sequential => "sequential",
            RequestDistribution::Exponential => "exponential",
        };
        let p = &self.proportions;
        vec![
            ("table", self.table.clone()),
            ("recordcount", self.record_count.to_string()),
            ("operationcount", self.operation_count.to_string()),
            ("insertstart", self.insert_start.to_string()),
            ("insertcount", self.insert_count.to_string()),
            ("fieldcount", self.field_count.to_string()),
            ("fieldnameprefix", self.field_name_prefix.clone()),
            ("fieldlength", self.field_length.to_string()),
            ("minfieldlength", self.min_field_length.to_string()),
            (
                "fieldlengthdistribution",
                length(self.field_length_distribution).to_string(),
            ),
            ("readallfields", self.read_all_fields.to_string()),
            ("writeallfields", self.write_all_fields.to_string()),
            ("readproportion", p.read.to_string()),
            ("updateproportion", p.update.to_string()),
            ("insertproportion", p.insert.to_string()),
            ("scanproportion", p.scan.to_string()),
            ("readmodifywriteproportion", p.read_modify_write.to_string()),
            ("requestdistribution", request.to_string()),
            ("zeropadding", self.zero_padding.to_string()),
            (
                "insertorder",
                if self.ordered_inserts {
                    "ordered"
                } else {
                    "hashed"
                }
                .to_string(),
            ),
            (
                "hotspotdatafraction",
                self.hotspot_data_fraction.to_string(),
            ),
            ("hotspotopnfraction", self.hotspot_opn_fraction.to_string()),
            ("minscanlength", self.min_scan_length.to_string()),
            ("maxscanlength", self.max_scan_length.to_string()),
            (
                "scanlengthdistribution",
                length(self.scan_length_distribution).to_string(),
            ),
            (
                "exponential.percentile",
                self.exponential_percentile.to_string(),
            ),
            ("exponential.frac", self.exponential_frac.to_string()),
            (
                "core_workload_insertion_retry_limit",
                self.insertion_retry_limit.to_string(),
            ),
            (
                "core_workload_insertion_retry_interval",
                self.insertion_retry_interval.as_secs().to_string(),
            ),
        ]
    }
}
